//! A real browser for the web client's tests: Debian's headless Chromium driven through its
//! chromedriver over WebDriver, on loopback. The README's test command and `.ci/run` install
//! both packages when they are missing. Waits poll the page until a condition holds; their
//! limit only keeps a broken page from hanging the suite, it measures nothing.

use fantoccini::{Client, ClientBuilder, Locator};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// How long a wait may poll before the test fails (a hang guard).
const PATIENCE: Duration = Duration::from_secs(60);

/// A chromedriver process, killed when dropped; it can open several browser sessions.
pub struct Driver {
    child: Child,
    url: String,
    profiles: Vec<PathBuf>,
}

impl Driver {
    pub async fn start() -> Driver {
        for tool in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                std::path::Path::new(tool).exists(),
                "{tool} is missing: the browser tests need Debian's chromium and chromium-driver \
                 (the README's test command installs them: apt-get install chromium chromium-driver)"
            );
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        // A process group of its own: dropping the driver kills it and every browser it started,
        // even those of a test that failed before closing its session.
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("chromedriver starts");
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < PATIENCE, "chromedriver never listened on {port}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Driver { child, url, profiles: Vec::new() }
    }

    /// A new browser window with a profile of its own (its own sessionStorage, no tokens shared),
    /// its language English.
    pub async fn browser(&mut self) -> Client {
        self.browser_in("en-US").await
    }

    /// A new browser window whose language is `lang` (its UI and the languages it asks pages for).
    pub async fn browser_in(&mut self, lang: &str) -> Client {
        let profile = std::env::temp_dir().join(format!("dawgref-chromium-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&profile).unwrap();
        let args = [
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--disable-quic".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--window-size=1400,1000".into(),
            format!("--lang={lang}"),
            format!("--user-data-dir={}", profile.display()),
        ];
        self.profiles.push(profile);
        let mut caps = serde_json::Map::new();
        let prefs = serde_json::json!({ "intl": { "accept_languages": lang } });
        caps.insert(
            "goog:chromeOptions".into(),
            serde_json::json!({ "binary": CHROMIUM, "args": args, "prefs": prefs }),
        );
        ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&self.url)
            .await
            .expect("a chromium session")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's process group; no memory is involved.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.kill();
        let _ = self.child.wait();
        for p in &self.profiles {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// Poll `read` until `good` holds for what it returns; fail (naming `what`) after PATIENCE.
pub async fn wait_until<T: std::fmt::Debug, F, Fut>(what: &str, mut read: F, good: impl Fn(&T) -> bool) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let started = Instant::now();
    let mut last = None;
    loop {
        if let Some(v) = read().await {
            if good(&v) {
                return v;
            }
            last = Some(v);
        }
        assert!(started.elapsed() < PATIENCE, "waited in vain for {what}; last seen: {last:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The text of the first element matching `css`, if there is one.
pub async fn text(c: &Client, css: &str) -> Option<String> {
    c.find(Locator::Css(css)).await.ok()?.text().await.ok()
}

/// How many elements match `css`.
pub async fn count(c: &Client, css: &str) -> usize {
    c.find_all(Locator::Css(css)).await.map_or(0, |v| v.len())
}

/// Wait until `css` has the text `want`.
pub async fn wait_text(c: &Client, css: &str, want: &str) -> String {
    wait_until(&format!("{css} to read {want:?}"), || text(c, css), |t| t == want).await
}

/// Click the element `css` matches, finding it again when the page redrew it between the find
/// and the click (a stale element), until it takes.
pub async fn click(c: &Client, css: &str) {
    let once = || async { c.find(Locator::Css(css)).await.ok()?.click().await.ok() };
    wait_until(&format!("a click on {css}"), once, |_| true).await;
}

/// Save a screenshot under `target/screenshots/` (a test artifact to look at).
pub async fn screenshot(c: &Client, name: &str) {
    let png = c.screenshot().await.expect("a screenshot");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
}

/// Run a script in the page and return its result.
pub async fn script(c: &Client, js: &str) -> serde_json::Value {
    c.execute(js, vec![]).await.expect("the script runs")
}

/// Make the page's viewport `width`×`height` CSS pixels (the window's frame, if any, added: the
/// window is sized again by what the viewport still lacks until it fits, as a resize may land
/// late), and answer what it then is.
pub async fn set_viewport(c: &Client, width: u32, height: u32) -> (u32, u32) {
    let inner = || async {
        let v = script(c, "return [innerWidth, innerHeight]").await;
        (v[0].as_u64().unwrap() as i64, v[1].as_u64().unwrap() as i64)
    };
    c.set_window_size(width, height).await.unwrap();
    let (w, h) = wait_until(
        &format!("a viewport of {width}×{height}"),
        || async {
            let (w, h) = inner().await;
            if (w, h) != (width.into(), height.into()) {
                let (outer_w, outer_h) = c.get_window_size().await.ok()?;
                let grow =
                    |outer: u64, want: u32, has: i64| (outer as i64 + i64::from(want) - has).max(1) as u32;
                c.set_window_size(grow(outer_w, width, w), grow(outer_h, height, h)).await.ok()?;
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Some(inner().await)
        },
        |&size| size == (width.into(), height.into()),
    )
    .await;
    (w as u32, h as u32)
}

/// The page's words in `lang`: English or Russian.
pub fn say<'a>(lang: &str, en: &'a str, ru: &'a str) -> &'a str {
    if lang == "ru" { ru } else { en }
}

/// Alphabetical order for names as a person reads them: case aside, ё as е.
pub fn alpha_key(name: &str) -> String {
    name.to_lowercase().replace('ё', "е")
}

/// The two screens and languages the pages' tests run at: a laptop in English, a phone in
/// Russian.
pub const SCREENS: [(&str, (u32, u32)); 2] = [("en", (1366, 768)), ("ru", (390, 844))];

/// A fresh browser (a profile of its own) in `lang` at `size`, the page at `path` of the server
/// at `url` open in it.
pub async fn open(
    driver: &mut Driver,
    url: &str,
    lang: &str,
    (width, height): (u32, u32),
    path: &str,
) -> Client {
    let c = if lang == "en" { driver.browser().await } else { driver.browser_in(lang).await };
    set_viewport(&c, width, height).await;
    c.goto(&format!("{url}{path}")).await.unwrap();
    c
}
