//! The server-side scripts: each transition is one script on one key, atomic, on the
//! server's clock (`TIME`), so that replicas with skewed clocks agree on every deadline.
//!
//! Every script begins with the time in milliseconds and answers with it, so that the
//! client turns the server's deadlines into its own monotonic instants.

use std::sync::LazyLock;

use redis::Script;

/// The server's time in milliseconds, as `now`.
const NOW: &str = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n";

/// The longest this library ever writes a deadline ahead, in milliseconds: what every
/// write is clamped to, and what a deadline read may be at most.
pub(crate) const MAX_AHEAD_MS: u64 = 24 * 3600 * 1000;

/// Before a script runs, its key is made what this library writes, or deleted: a key of
/// another type, a count or deadline that is not a plain integer, or a deadline further
/// ahead than [`MAX_AHEAD_MS`] (another writer's value, never obeyed). Deleting it makes it
/// absent for this script and every later one; `repaired` says so to the client. Only that
/// key is touched: a bad key is its own problem, not the store's.
fn sanitize() -> String {
    format!(
        "local repaired = 0
local function repair()
  redis.call('DEL', KEYS[1])
  repaired = 1
end
local kind = redis.call('TYPE', KEYS[1])
if type(kind) == 'table' then kind = kind.ok end
if kind ~= 'none' then
  if kind ~= 'hash' then
    repair()
  else
    local v = redis.call('HGETALL', KEYS[1])
    for i = 1, #v, 2 do
      local name, value = v[i], v[i + 1]
      if name ~= 'code' then
        if string.len(value) > 15 or not string.match(value, '^%d+$') then
          repair()
          break
        end
        if (name == 'until' or name == 'lease') and tonumber(value) > now + {MAX_AHEAD_MS} then
          repair()
          break
        end
      end
    end
  end
end
"
    )
}

/// A script: the time, the key made sane, then `body`, whose answer (an array) gets
/// `repaired` (1 or 0) as its last element.
fn script(body: &str) -> Script {
    Script::new(&format!(
        "{NOW}{}local function body()\n{body}\nend\nlocal answer = body()\nanswer[#answer + 1] = repaired\nreturn answer",
        sanitize()
    ))
}

/// A pause's state: `{now, deadline, set_at, code}`.
pub(crate) static PAUSE_GET: LazyLock<Script> = LazyLock::new(|| {
    script(
        "local v = redis.call('HMGET', KEYS[1], 'until', 'set', 'code')
return {now, tonumber(v[1]) or 0, tonumber(v[2]) or 0, v[3] or ''}",
    )
});

/// Sets a pause of `ARGV[1]` ms with code `ARGV[2]`; the later deadline wins. The key
/// lives `ARGV[3]` ms past the deadline (the jitter after it). Answers as `PAUSE_GET`.
pub(crate) static PAUSE_SET: LazyLock<Script> = LazyLock::new(|| {
    script(
        "local deadline = now + tonumber(ARGV[1])
local v = redis.call('HMGET', KEYS[1], 'until', 'set', 'code')
local old = tonumber(v[1]) or 0
if deadline > old then
  redis.call('HSET', KEYS[1], 'until', deadline, 'set', now, 'code', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], deadline - now + tonumber(ARGV[3]))
  return {now, deadline, now, ARGV[2]}
end
return {now, old, tonumber(v[2]) or 0, v[3] or ''}",
    )
});

/// Reads a circuit: `{now, failures, open until (0 closed), lease end (0 none)}`.
const CIRCUIT: &str = "local function circuit()
  local v = redis.call('HMGET', KEYS[1], 'f', 'until', 'lease')
  return {now, tonumber(v[1]) or 0, tonumber(v[2]) or 0, tonumber(v[3]) or 0}
end
";

pub(crate) static CIRCUIT_GET: LazyLock<Script> =
    LazyLock::new(|| script(&format!("{CIRCUIT}return circuit()")));

/// One more failure in a row; opens at threshold `ARGV[1]` for `ARGV[2]` ms. The key
/// lives `ARGV[3]` ms past the cooldown.
pub(crate) static FAILURE: LazyLock<Script> = LazyLock::new(|| {
    script(&format!(
        "{CIRCUIT}local f = redis.call('HINCRBY', KEYS[1], 'f', 1)
local deadline = tonumber(redis.call('HGET', KEYS[1], 'until')) or 0
if deadline == 0 and f >= tonumber(ARGV[1]) then
  deadline = now + tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'until', deadline)
end
redis.call('PEXPIRE', KEYS[1], math.max(deadline - now, 0) + tonumber(ARGV[3]))
return circuit()"
    ))
});

/// A success on a closed circuit: its failures in a row go back to zero.
pub(crate) static SUCCESS: LazyLock<Script> = LazyLock::new(|| {
    script(&format!(
        "{CIRCUIT}local deadline = tonumber(redis.call('HGET', KEYS[1], 'until')) or 0
if deadline == 0 and redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'f', 0) end
return circuit()"
    ))
});

/// Claims the one trial, for a lease of `ARGV[1]` ms: `{token}` (0: not granted).
pub(crate) static CLAIM: LazyLock<Script> = LazyLock::new(|| {
    script(
        "local v = redis.call('HMGET', KEYS[1], 'until', 'lease')
local deadline = tonumber(v[1]) or 0
local lease = tonumber(v[2]) or 0
if deadline == 0 or now < deadline or now < lease then return {now, 0} end
local token = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[1], 'tok', token, 'lease', now + tonumber(ARGV[1]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]))
return {now, token}",
    )
});

/// Reports the trial of token `ARGV[1]`: `ARGV[2]` 1 closes, 0 reopens for `ARGV[3]` ms;
/// `ARGV[2]` -1 gives the trial up. A token that is not the current one changes nothing.
pub(crate) static FINISH: LazyLock<Script> = LazyLock::new(|| {
    script(
        "if redis.call('HGET', KEYS[1], 'tok') ~= ARGV[1] then return {now, 0} end
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'f', 0, 'until', 0, 'tok', 0, 'lease', 0)
elseif ARGV[2] == '0' then
  local deadline = now + tonumber(ARGV[3])
  redis.call('HINCRBY', KEYS[1], 'f', 1)
  redis.call('HSET', KEYS[1], 'until', deadline, 'tok', 0, 'lease', 0)
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[4]))
else
  redis.call('HSET', KEYS[1], 'tok', 0, 'lease', 0)
end
return {now, 1}",
    )
});

/// Spends `ARGV[1]` tokens of a bucket that holds `ARGV[2]` when new: `{now, 1|0}`.
pub(crate) static SPEND: LazyLock<Script> = LazyLock::new(|| {
    script(
        "local t = tonumber(redis.call('HGET', KEYS[1], 't')) or tonumber(ARGV[2])
local cost = tonumber(ARGV[1])
if t < cost then
  redis.call('HSET', KEYS[1], 't', t)
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
  return {now, 0}
end
redis.call('HSET', KEYS[1], 't', t - cost)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return {now, 1}",
    )
});

/// Puts `ARGV[1]` tokens back, never above `ARGV[2]`.
pub(crate) static REFILL: LazyLock<Script> = LazyLock::new(|| {
    script(
        "local t = tonumber(redis.call('HGET', KEYS[1], 't'))
if t then redis.call('HSET', KEYS[1], 't', math.min(t + tonumber(ARGV[1]), tonumber(ARGV[2]))) end
return {now, 1}",
    )
});
