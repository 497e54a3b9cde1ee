//! Chess clocks for tournament games: initial time, an increment per move, overtime at 10
//! points per started minute, and a loss past the maximum overtime. Times are the caller's
//! milliseconds since the game was created; the clock never reads a wall clock itself.

/// Clock settings of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockConfig {
    /// Time each seat starts with.
    pub initial_ms: u64,
    /// Time added after each of the seat's own turns.
    pub increment_ms: u64,
    /// Overtime allowed before the seat loses on time.
    pub max_overtime_ms: u64,
    /// Points lost per started minute of overtime (10 in tournament practice).
    pub penalty_per_minute: i32,
    /// A correspondence clock: every move has `initial_ms` of its own (unused time does not
    /// carry over; no increment, no overtime), and the flag falls when a move's time is up.
    pub per_move: bool,
}

impl ClockConfig {
    /// Tournament practice: 25 minutes, no increment, 10 minutes of overtime at 10 points a minute.
    pub fn tournament() -> ClockConfig {
        ClockConfig {
            initial_ms: 25 * 60_000,
            increment_ms: 0,
            max_overtime_ms: 10 * 60_000,
            penalty_per_minute: 10,
            per_move: false,
        }
    }

    /// A correspondence clock: `per_move_ms` for every move.
    pub fn per_move(per_move_ms: u64) -> ClockConfig {
        ClockConfig {
            initial_ms: per_move_ms,
            increment_ms: 0,
            max_overtime_ms: 0,
            penalty_per_minute: 0,
            per_move: true,
        }
    }
}

/// Every seat's clock; at most one runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clocks {
    config: ClockConfig,
    /// Time left per seat, negative in overtime (not counting the running period).
    remaining_ms: Vec<i64>,
    /// The running seat and since when.
    running: Option<(usize, u64)>,
}

impl Clocks {
    /// Clocks for `seats`, seat 0's running from `start_ms`.
    pub fn new(config: ClockConfig, seats: usize, start_ms: u64) -> Clocks {
        Clocks { config, remaining_ms: vec![config.initial_ms as i64; seats], running: Some((0, start_ms)) }
    }

    pub fn config(&self) -> &ClockConfig {
        &self.config
    }

    /// Start `seat`'s clock (the previous one must have been stopped). A correspondence clock
    /// gives the move its full time.
    pub fn start(&mut self, seat: usize, now_ms: u64) {
        if self.config.per_move {
            self.remaining_ms[seat] = self.config.initial_ms as i64;
        }
        self.running = Some((seat, now_ms));
    }

    /// Stop `seat`'s clock after its turn and add the increment.
    pub fn stop(&mut self, seat: usize, now_ms: u64) {
        if let Some((running, since)) = self.running
            && running == seat
        {
            self.remaining_ms[seat] -= now_ms.saturating_sub(since) as i64;
            self.remaining_ms[seat] += self.config.increment_ms as i64;
            self.running = None;
        }
    }

    /// Time left for `seat` at `now_ms` (negative in overtime).
    pub fn remaining_ms(&self, seat: usize, now_ms: u64) -> i64 {
        let mut r = self.remaining_ms[seat];
        if let Some((running, since)) = self.running
            && running == seat
        {
            r -= now_ms.saturating_sub(since) as i64;
        }
        r
    }

    /// Overtime used by `seat` at `now_ms`.
    pub fn overtime_ms(&self, seat: usize, now_ms: u64) -> u64 {
        (-self.remaining_ms(seat, now_ms)).max(0) as u64
    }

    /// Whether `seat` has used more than the allowed overtime.
    pub fn out_of_time(&self, seat: usize, now_ms: u64) -> bool {
        self.overtime_ms(seat, now_ms) > self.config.max_overtime_ms
    }

    /// The penalty for an amount of overtime: per started minute.
    pub fn penalty(&self, overtime_ms: u64) -> i32 {
        overtime_ms.div_ceil(60_000) as i32 * self.config.penalty_per_minute
    }

    /// When the running seat's flag falls: the first millisecond at which it has used more than
    /// the allowed overtime (None when no clock runs). A session arms its timer for this.
    pub fn flag_fall_ms(&self) -> Option<u64> {
        let (seat, since) = self.running?;
        let allowed = self.remaining_ms[seat] + self.config.max_overtime_ms as i64 + 1;
        Some(since.saturating_add(allowed.max(0) as u64))
    }

    /// Stop every clock at `now_ms` without an increment: the game is over.
    pub fn halt(&mut self, now_ms: u64) {
        if let Some((seat, since)) = self.running.take() {
            self.remaining_ms[seat] -= now_ms.saturating_sub(since) as i64;
        }
    }

    /// The seat whose clock runs, if any.
    pub fn running(&self) -> Option<usize> {
        self.running.map(|(s, _)| s)
    }

    /// Give `seat` `delta_ms` more time (less when negative): a director's adjustment.
    /// Give `seat` `delta_ms` more time (less, when negative), unless its time left would then
    /// be more than `max_ms` either way: then nothing changes, and the error is its time left.
    pub fn adjust(&mut self, seat: usize, delta_ms: i64, max_ms: i64) -> Result<(), i64> {
        let Some(r) = self.remaining_ms.get_mut(seat) else { return Ok(()) };
        match r.checked_add(delta_ms) {
            Some(left) if left.unsigned_abs() <= max_ms.unsigned_abs() => {
                *r = left;
                Ok(())
            }
            _ => Err(*r),
        }
    }

    /// `seat`'s running clock, charged up to `from_ms`, runs again from `to_ms`: the time in
    /// between is nobody's (a taken-back turn).
    pub fn shift(&mut self, seat: usize, from_ms: u64, to_ms: u64) {
        if let Some((running, since)) = self.running
            && running == seat
        {
            self.remaining_ms[seat] -= from_ms.saturating_sub(since) as i64;
            self.running = Some((seat, to_ms.max(from_ms)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overtime_is_charged_per_started_minute() {
        let mut c = Clocks::new(
            ClockConfig {
                initial_ms: 60_000,
                increment_ms: 0,
                max_overtime_ms: 180_000,
                penalty_per_minute: 10,
                per_move: false,
            },
            2,
            0,
        );
        c.stop(0, 61_000);
        assert_eq!(c.overtime_ms(0, 61_000), 1_000);
        assert_eq!(c.penalty(1_000), 10);
        assert_eq!(c.penalty(60_000), 10);
        assert_eq!(c.penalty(60_001), 20);
        c.start(1, 61_000);
        assert_eq!(c.remaining_ms(1, 100_000), 21_000);
        assert!(!c.out_of_time(1, 100_000));
        assert!(c.out_of_time(1, 61_000 + 60_000 + 180_001));
        // The flag falls at the first millisecond past the overtime allowed, not before.
        let flag = c.flag_fall_ms().unwrap();
        assert_eq!(flag, 61_000 + 60_000 + 180_001);
        assert!(!c.out_of_time(1, flag - 1));
        c.halt(100_000);
        assert_eq!((c.running(), c.flag_fall_ms(), c.remaining_ms(1, 999_999)), (None, None, 21_000));
    }

    #[test]
    fn increment_after_each_turn() {
        let mut c = Clocks::new(
            ClockConfig {
                initial_ms: 10_000,
                increment_ms: 5_000,
                max_overtime_ms: 0,
                penalty_per_minute: 10,
                per_move: false,
            },
            2,
            0,
        );
        c.stop(0, 4_000);
        assert_eq!(c.remaining_ms(0, 4_000), 11_000);
        assert_eq!(c.running(), None);
    }

    #[test]
    fn a_correspondence_clock_gives_every_move_its_own_time() {
        let day = 86_400_000;
        let mut c = Clocks::new(ClockConfig::per_move(day), 2, 0);
        // Seat 0 uses half its day; seat 1 then gets a whole day, and seat 0 again a whole one.
        c.stop(0, day / 2);
        c.start(1, day / 2);
        assert_eq!(c.remaining_ms(1, day / 2), day as i64);
        c.stop(1, day);
        c.start(0, day);
        assert_eq!(c.remaining_ms(0, day), day as i64);
        // The flag falls the first millisecond past the move's day: no overtime.
        assert_eq!(c.flag_fall_ms(), Some(2 * day + 1));
        assert!(!c.out_of_time(0, 2 * day) && c.out_of_time(0, 2 * day + 1));
    }
}
