// grpc-web for the page: a protobuf codec driven by the server's own schema (/web/schema.json,
// generated from the descriptor set the server was built with, so the page cannot drift from the
// protos), unary calls and server streams over fetch. Messages are plain objects with the protos'
// field names; enums are their value names; a oneof's chosen field is named by `obj.<oneof>`.

let schema = null;

/** Fetch the schema once; every call waits for it. */
export async function loadSchema() {
  if (!schema) {
    const res = await fetch("/web/schema.json");
    schema = await res.json();
  }
  return schema;
}

/** A gRPC status other than OK. */
export class GrpcError extends Error {
  constructor(code, message) {
    super(message || CODE_NAMES[code] || `status ${code}`);
    this.code = code;
    this.codeName = CODE_NAMES[code] || String(code);
  }
}

export const CODE_NAMES = [
  "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
  "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
  "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
];

// ---- encoding ----

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

class Writer {
  constructor() { this.bytes = []; }
  varint(value) {
    let v = typeof value === "bigint" ? BigInt.asUintN(64, value) : null;
    if (v === null) {
      if (Number.isInteger(value) && value >= 0 && value < 2 ** 31) {
        let n = value;
        while (n > 127) { this.bytes.push((n & 127) | 128); n >>>= 7; }
        this.bytes.push(n);
        return;
      }
      v = BigInt.asUintN(64, BigInt(Math.trunc(value)));
    }
    while (v > 127n) { this.bytes.push(Number(v & 127n) | 128); v >>= 7n; }
    this.bytes.push(Number(v));
  }
  key(number, wire) { this.varint(number * 8 + wire); }
  raw(bytes) { for (const b of bytes) this.bytes.push(b); }
  lengthDelimited(bytes) { this.varint(bytes.length); this.raw(bytes); }
  finish() { return Uint8Array.from(this.bytes); }
}

function enumNumber(typeName, value) {
  if (typeof value === "number") return value;
  const values = schema.enums[typeName];
  if (!values || !(value in values)) throw new Error(`${value} is not a value of ${typeName}`);
  return values[value];
}

function scalarVarint(type, typeName, value) {
  switch (type) {
    case "bool": return value ? 1 : 0;
    case "enum": return enumNumber(typeName, value);
    case "sint32": case "sint64": {
      const v = BigInt(value);
      return (v << 1n) ^ (v < 0n ? -1n : 0n);
    }
    default: return value;
  }
}

const VARINT_TYPES = new Set(["bool", "enum", "int32", "int64", "uint32", "uint64", "sint32", "sint64"]);

function isDefault(type, value) {
  if (type === "string") return value === "";
  if (type === "bytes") return value.length === 0;
  if (type === "bool") return value === false;
  if (type === "enum") return value === 0 || /_UNSPECIFIED$/.test(value);
  return value === 0 || value === 0n;
}

/** Encode `obj` as the message `typeName` ("dawgref.v1.Play"). */
export function encode(typeName, obj) {
  const fields = schema.messages[typeName];
  if (!fields) throw new Error(`no message ${typeName}`);
  const w = new Writer();
  for (const [number, name, type, repeated, fieldType, oneof] of fields) {
    const value = obj[name];
    if (value === undefined || value === null) continue;
    if (type === "map") {
      // A map: an entry message per key, in the object's order.
      for (const [key, v] of Object.entries(value)) {
        w.key(number, 2);
        w.lengthDelimited(encode(fieldType, { key, value: v }));
      }
      continue;
    }
    const values = repeated ? value : [value];
    if (repeated && values.length === 0) continue;
    if (!repeated && !oneof && type !== "message" && isDefault(type, value)) continue;
    if (repeated && VARINT_TYPES.has(type)) {
      const packed = new Writer();
      for (const v of values) packed.varint(scalarVarint(type, fieldType, v));
      w.key(number, 2);
      w.lengthDelimited(packed.finish());
      continue;
    }
    for (const v of values) {
      if (VARINT_TYPES.has(type)) {
        w.key(number, 0);
        w.varint(scalarVarint(type, fieldType, v));
      } else if (type === "string") {
        w.key(number, 2);
        w.lengthDelimited(textEncoder.encode(v));
      } else if (type === "bytes") {
        w.key(number, 2);
        w.lengthDelimited(v);
      } else if (type === "message") {
        w.key(number, 2);
        w.lengthDelimited(encode(fieldType, v));
      } else if (type === "double" || type === "float") {
        const wide = type === "double";
        const buf = new DataView(new ArrayBuffer(wide ? 8 : 4));
        if (wide) buf.setFloat64(0, v, true); else buf.setFloat32(0, v, true);
        w.key(number, wide ? 1 : 5);
        w.raw(new Uint8Array(buf.buffer));
      } else {
        throw new Error(`${typeName}.${name}: the page does not encode ${type}`);
      }
    }
  }
  return w.finish();
}

// ---- decoding ----

class Reader {
  constructor(bytes) { this.bytes = bytes; this.pos = 0; }
  done() { return this.pos >= this.bytes.length; }
  varint() {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.bytes.length) throw new Error("truncated varint");
      const b = this.bytes[this.pos++];
      result |= BigInt(b & 127) << shift;
      if (b < 128) return result;
      shift += 7n;
    }
  }
  take(n) {
    if (this.pos + n > this.bytes.length) throw new Error("truncated field");
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  skip(wire) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.take(8);
    else if (wire === 2) this.take(Number(this.varint()));
    else if (wire === 5) this.take(4);
    else throw new Error(`wire type ${wire}`);
  }
}

function enumName(typeName, number) {
  const values = schema.enums[typeName] || {};
  for (const [name, n] of Object.entries(values)) if (n === number) return name;
  return number;
}

function fromVarint(type, typeName, v) {
  switch (type) {
    case "bool": return v !== 0n;
    case "enum": return enumName(typeName, Number(BigInt.asIntN(32, v)));
    case "int32": return Number(BigInt.asIntN(32, v));
    case "uint32": return Number(BigInt.asUintN(32, v));
    case "int64": return Number(BigInt.asIntN(64, v));
    case "uint64": return Number(v);
    case "sint32": case "sint64": return Number((v >> 1n) ^ -(v & 1n));
    default: return Number(v);
  }
}

function defaultOf(type, typeName) {
  switch (type) {
    case "string": return "";
    case "bytes": return new Uint8Array(0);
    case "bool": return false;
    case "enum": return enumName(typeName, 0);
    case "message": return null;
    default: return 0;
  }
}

/** Decode the message `typeName` from bytes; unset fields get proto3's defaults. */
export function decode(typeName, bytes) {
  const fields = schema.messages[typeName];
  if (!fields) throw new Error(`no message ${typeName}`);
  const obj = {};
  const byNumber = new Map();
  for (const field of fields) {
    const [number, name, type, repeated, fieldType, oneof] = field;
    byNumber.set(number, field);
    obj[name] = type === "map" ? {} : repeated ? [] : oneof ? undefined : defaultOf(type, fieldType);
  }
  const r = new Reader(bytes);
  while (!r.done()) {
    const key = Number(r.varint());
    const number = Math.floor(key / 8);
    const wire = key & 7;
    const field = byNumber.get(number);
    if (!field) { r.skip(wire); continue; }
    const [, name, type, repeated, fieldType, oneof] = field;
    const put = (v) => {
      if (repeated) obj[name].push(v);
      else obj[name] = v;
    };
    if (VARINT_TYPES.has(type)) {
      if (wire === 2) {
        const packed = new Reader(r.take(Number(r.varint())));
        while (!packed.done()) put(fromVarint(type, fieldType, packed.varint()));
      } else {
        put(fromVarint(type, fieldType, r.varint()));
      }
    } else if (wire === 2 && (type === "double" || type === "float")) {
      // A packed repeated double or float: the values end to end.
      const bytes = r.take(Number(r.varint()));
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      const width = type === "double" ? 8 : 4;
      for (let at = 0; at + width <= bytes.length; at += width) {
        put(width === 8 ? view.getFloat64(at, true) : view.getFloat32(at, true));
      }
    } else if (wire === 2) {
      const bytes = r.take(Number(r.varint()));
      if (type === "string") put(textDecoder.decode(bytes));
      else if (type === "map") {
        const entry = decode(fieldType, bytes);
        obj[name][entry.key] = entry.value;
      } else if (type === "bytes") put(bytes.slice());
      else if (type === "message") put(decode(fieldType, bytes));
      else throw new Error(`${typeName}.${name}: the page does not decode ${type}`);
    } else if ((type === "double" && wire === 1) || (type === "float" && wire === 5)) {
      const bytes = r.take(wire === 1 ? 8 : 4);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      put(wire === 1 ? view.getFloat64(0, true) : view.getFloat32(0, true));
    } else {
      r.skip(wire);
      continue;
    }
    if (oneof && !oneof.startsWith("_")) obj[oneof] = name;
  }
  return obj;
}

// ---- grpc-web ----

function frame(message) {
  const out = new Uint8Array(5 + message.length);
  new DataView(out.buffer).setUint32(1, message.length);
  out.set(message, 5);
  return out;
}

function method(service, name) {
  const full = `dawgref.v1.${service}`;
  const m = schema.services[full] && schema.services[full][name];
  if (!m) throw new Error(`no method ${service}/${name}`);
  return { path: `/${full}/${name}`, request: m[0], response: m[1] };
}

/**
 * The call's headers. A request about one game also names it in `x-dawgref-game`, so that a
 * balancer in front of replicas sends every call of the game to the same replica (its owner).
 */
function headers(token, request) {
  const h = { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" };
  if (token) h.authorization = `Bearer ${token}`;
  const game = request && (request.game_id || request.position?.game_id);
  if (typeof game === "string" && game) h["x-dawgref-game"] = game;
  return h;
}

function statusFrom(get) {
  const code = get("grpc-status");
  if (code === null || code === undefined) return null;
  let message = get("grpc-message") || "";
  try { message = decodeURIComponent(message); } catch { /* as sent */ }
  return { code: Number(code), message };
}

function trailers(bytes) {
  const map = new Map();
  for (const line of textDecoder.decode(bytes).split("\r\n")) {
    const at = line.indexOf(":");
    if (at > 0) map.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  return statusFrom((k) => (map.has(k) ? map.get(k) : null));
}

/** Split complete frames off the front of `buffer`; returns [frames, rest]. */
function frames(buffer) {
  const out = [];
  let at = 0;
  while (buffer.length - at >= 5) {
    const length = new DataView(buffer.buffer, buffer.byteOffset + at + 1, 4).getUint32(0);
    if (buffer.length - at - 5 < length) break;
    out.push({ flag: buffer[at], bytes: buffer.subarray(at + 5, at + 5 + length) });
    at += 5 + length;
  }
  return [out, buffer.subarray(at)];
}

/** One unary call: `await call("GamesService", "GetGame", {game_id}, token)`. */
export async function call(service, name, request, token) {
  await loadSchema();
  const m = method(service, name);
  const res = await fetch(m.path, { method: "POST", headers: headers(token, request), body: frame(encode(m.request, request)) });
  if (!res.ok) throw new GrpcError(14, `HTTP ${res.status}`);
  const early = statusFrom((k) => res.headers.get(k));
  const [parts] = frames(new Uint8Array(await res.arrayBuffer()));
  let answer = null;
  let status = early;
  for (const f of parts) {
    if (f.flag & 0x80) status = trailers(f.bytes);
    else answer = decode(m.response, f.bytes);
  }
  if (!status) status = { code: answer ? 0 : 2, message: answer ? "" : "no answer" };
  if (status.code !== 0) throw new GrpcError(status.code, status.message);
  return answer;
}

/**
 * A server stream: `onMessage` gets each message as it arrives. Resolves when the stream closes
 * with OK, rejects with its status otherwise. Abort with `signal`.
 */
export async function stream(service, name, request, token, onMessage, signal) {
  await loadSchema();
  const m = method(service, name);
  const res = await fetch(m.path, {
    method: "POST", headers: headers(token, request), body: frame(encode(m.request, request)), signal,
  });
  if (!res.ok) throw new GrpcError(14, `HTTP ${res.status}`);
  let status = statusFrom((k) => res.headers.get(k));
  const reader = res.body.getReader();
  let buffer = new Uint8Array(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const joined = new Uint8Array(buffer.length + value.length);
    joined.set(buffer);
    joined.set(value, buffer.length);
    const [parts, rest] = frames(joined);
    buffer = rest.slice();
    for (const f of parts) {
      if (f.flag & 0x80) status = trailers(f.bytes);
      else onMessage(decode(m.response, f.bytes));
    }
  }
  if (status && status.code !== 0) throw new GrpcError(status.code, status.message);
}
