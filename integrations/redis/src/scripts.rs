//! The server-side scripts: each transition is one script on one key, atomic, on the
//! server's clock (`TIME`), so that replicas with skewed clocks agree on every deadline.
//!
//! Every script begins with the time in milliseconds and answers with it, so that the
//! client turns the server's deadlines into its own monotonic instants.

use std::sync::LazyLock;

use agent_error_runtime::store::MAX_UNITS;
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

/// The most a pacing hold (and a bucket's refill until full) lies ahead, in milliseconds:
/// 25 hours, the longest a provider's window plausibly lasts.
pub(crate) const MAX_HOLD_MS: u64 = 25 * 3600 * 1000;

/// The runtime's short default ([`PROBE_WAIT`](agent_error_runtime::store::PROBE_WAIT)) in
/// milliseconds: how long a spent bucket with no known rate waits before its next probe.
const PROBE_MS: u128 = agent_error_runtime::store::PROBE_WAIT.as_millis();
/// [`IN_FLIGHT`](agent_error_runtime::store::IN_FLIGHT) in milliseconds.
const IN_FLIGHT_MS: u128 = agent_error_runtime::store::IN_FLIGHT.as_millis();

/// Arguments of [`PACE`] per dimension: a report (capacity, level, rate, hold ms), a
/// configured limit (capacity, rate), the units spent, the units to take, the units to
/// lease.
pub(crate) const PACE_ARGS_PER_DIMENSION: usize = 9;

/// One pacing step on a key's buckets, the arithmetic of the runtime's bucket on the
/// server's clock in (fractional) milliseconds.
///
/// The key is one hash: per dimension `d` (0 to 3) `c<d>` capacity, `r<d>` rate a second,
/// `l<d>` level, `t<d>` when the level was true, `h<d>` no refill before then, `p<d>` 1
/// when a response reported it, `n<d>` and `o<d>` units reserved lately (in the interval
/// begun at `i<d>`, and the one before), `u<d>` units reserved while no bucket of the
/// dimension was known (since `w<d>`: the bucket the first report or limit makes is short
/// of them); and `x:<replica>`, when each replica last stepped.
///
/// `ARGV`: per dimension the nine of [`PACE_ARGS_PER_DIMENSION`] (an empty string for a
/// report or limit not given), then the longest wait a reservation may need (ms), the
/// replica's id and the store's ttl (ms). A dimension whose stored fields are not all
/// finite numbers, whose capacity is not above zero or above [`MAX_UNITS`], whose level
/// lies above its capacity or below what reservations can owe (the runtime's
/// [`floor_of`](agent_error_runtime::store::floor_of)), whose rate is negative or would take more than 25
/// hours to fill it, or whose times lie more than 25 hours ahead is dropped and counts as
/// absent; so are a replica field that is not a time, and a bucket that absurd units (near
/// the largest double) would leave with a number that is not finite. A bucket that no
/// response reported takes the step's configured limit, whatever was stored. A refill too
/// long for a duration, or a wait past the longest hold, is refused whatever the longest
/// wait a reservation may need, as the runtime's bucket does; every reservation lowers the
/// level by what it takes, so the wait of the next grows with each one. A bucket with
/// no known rate spends what is left, then lets one call through as a probe at the end of
/// its hold (a window's reset, else the short default after the report; at once when that
/// turn passed unused), and holds the next probe the short default after it. The key lives
/// until its buckets are full again (at most 25 hours) plus the ttl.
///
/// Answers `{now, reserved (1 or 0), wait ms, replicas, four views, four leased, repaired}`:
/// a view is `{capacity, level, rate, hold ms}` or empty; the units leased per dimension
/// (none unless the call goes at once); `repaired` is 1 when a key of another type
/// was deleted, 2 when stored values were dropped, else 0. Numbers that may have a
/// fraction are strings (`%.17g`), so that they cross without being cut to integers.
pub(crate) static PACE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local MAX_HOLD = {MAX_HOLD_MS}
local MAX_UNITS = {MAX_UNITS}
local PROBE = {PROBE_MS}
local IN_FLIGHT = {IN_FLIGHT_MS}
local SEEN, MAX_REPLICAS = 10000, 64
local TOO_LONG = 18446744073709551615000
local repaired = 0
local function num(s)
  local x = tonumber(s)
  if x == nil or x ~= x or x == math.huge or x == -math.huge then return nil end
  return x
end
local function fmt(x) return string.format('%.17g', x) end
local kind = redis.call('TYPE', KEYS[1])
if type(kind) == 'table' then kind = kind.ok end
local fields = {{}}
if kind == 'hash' then
  local v = redis.call('HGETALL', KEYS[1])
  for i = 1, #v, 2 do fields[v[i]] = v[i + 1] end
elseif kind ~= 'none' then
  redis.call('DEL', KEYS[1])
  repaired = 1
end
local function drop(...)
  redis.call('HDEL', KEYS[1], ...)
  if repaired == 0 then repaired = 2 end
end
local names = {{'c', 'r', 'l', 't', 'h', 'p'}}
local buckets = {{}}
for d = 0, 3 do
  local b, present, whole = {{}}, false, true
  for _, n in ipairs(names) do
    local s = fields[n .. d]
    if s ~= nil then present = true end
    b[n] = num(s)
    if b[n] == nil then whole = false end
  end
  if present then
    if whole and b.c > 0 and b.c <= MAX_UNITS and b.r >= 0 and b.l <= b.c
      and b.l >= -(b.c + b.r * MAX_HOLD / 1000)
      and (b.r == 0 or b.c / b.r * 1000 <= MAX_HOLD)
      and b.h <= now + MAX_HOLD and b.t <= now + MAX_HOLD then
      b.p = b.p ~= 0
      -- What was reserved lately (optional): in the interval begun at i, and the one before.
      b.n = math.min(math.max(num(fields['n' .. d]) or 0, 0), b.c)
      b.o = math.min(math.max(num(fields['o' .. d]) or 0, 0), b.c)
      b.i = num(fields['i' .. d]) or now
      if b.i > now then b.i = now end
      buckets[d] = b
    else
      drop('c' .. d, 'r' .. d, 'l' .. d, 't' .. d, 'h' .. d, 'p' .. d, 'n' .. d, 'o' .. d, 'i' .. d)
    end
  end
end
local me = 'x:' .. ARGV[{PACE_ARGS_PER_DIMENSION} * 4 + 2]
local others = {{}}
for name, s in pairs(fields) do
  if name ~= me and string.sub(name, 1, 2) == 'x:' then
    local seen = num(s)
    if seen == nil or seen > now + SEEN then
      drop(name)
    elseif now - seen >= SEEN then
      redis.call('HDEL', KEYS[1], name)
    else
      others[#others + 1] = {{name, seen}}
    end
  end
end
if #others >= MAX_REPLICAS then
  table.sort(others, function(a, b) return a[2] < b[2] or (a[2] == b[2] and a[1] < b[1]) end)
  for i = MAX_REPLICAS, #others do redis.call('HDEL', KEYS[1], others[i][1]) end
end
local replicas = math.min(#others, MAX_REPLICAS - 1) + 1
redis.call('HSET', KEYS[1], me, fmt(now))
local function refill(b)
  local from = math.max(b.t, b.h)
  if now > from and b.r > 0 then b.l = math.min(b.l + b.r * (now - from) / 1000, b.c) end
  b.t = math.max(b.t, now)
end
-- A spend counts at most one bucket either way, and never takes the level below minus one
-- bucket: a peer's number never locks the key for longer than about two windows. A level
-- that reservations took lower stays there.
local function spend(b, units)
  units = math.max(math.min(units, b.c), -b.c)
  if units > 0 then return math.max(b.l - units, math.min(b.l, -b.c)) end
  return math.min(b.l - units, b.c)
end
-- A reservation takes what it reserves (at most the capacity): every one counts, down to
-- what reservations granted a wait of at most MAX_HOLD can owe, and one bucket more.
local function take_units(b, units)
  if not (units > 0) then return b.l end
  return math.max(b.l - math.min(units, b.c), -(b.c + b.r * MAX_HOLD / 1000))
end
-- Reservations: calls on their way, which a response written meanwhile may not count yet,
-- kept for one or two intervals of IN_FLIGHT ms.
local function roll(b)
  local passed = now - b.i
  if passed >= IN_FLIGHT then
    if passed >= 2 * IN_FLIGHT then b.o = 0 else b.o = b.n end
    b.n = 0
    b.i = now
  end
end
local function booked(b, units)
  roll(b)
  if units > 0 then b.n = math.min(b.n + units, b.c) end
end
local function short(b, take)
  take = math.min(take, b.c)
  return take > 0 and b.l < take
end
-- With no known rate, what is left is spent, then one call goes as a probe a turn: at the
-- end of the hold (at once when that turn passed unused).
local function need(b, take)
  if not short(b, take) then return 0 end
  if b.r <= 0 then return math.max(b.h - now, 0) end
  take = math.min(take, b.c)
  local refill = (take - b.l) / b.r * 1000
  if not (refill < TOO_LONG) then refill = TOO_LONG end
  return math.max(b.h - now, 0) + refill
end
-- Units reserved while no limit of a dimension was known (no bucket), since w<d>: calls on
-- their way that the first report may not count yet, kept for one IN_FLIGHT interval.
local unmetered = {{}}
for d = 0, 3 do
  local u, w = num(fields['u' .. d]), num(fields['w' .. d])
  if u == nil or w == nil or u < 0 or w > now or now - w >= IN_FLIGHT then
    u, w = 0, now
  end
  unmetered[d] = {{u = math.min(u, MAX_UNITS), w = w}}
end
local longest = 0
for d = 0, 3 do
  local a = {PACE_ARGS_PER_DIMENSION} * d
  local b = buckets[d]
  local known = b ~= nil
  local cc, cr = num(ARGV[a + 5]), num(ARGV[a + 6])
  if cc ~= nil and cc > 0 and cc <= MAX_UNITS and cr ~= nil then
    if b == nil then
      b = {{c = cc, r = math.max(cr, 0), l = cc, t = now, h = 0, p = false, n = 0, o = 0, i = now}}
    elseif not b.p then
      -- No response has reported this bucket: the limit configured is the one in force.
      refill(b)
      b.c, b.r, b.l = cc, math.max(cr, 0), math.min(b.l, cc)
    end
  end
  local rc, rl, rr, rh = num(ARGV[a + 1]), num(ARGV[a + 2]), num(ARGV[a + 3]), num(ARGV[a + 4])
  if rc and rl and rr and rh and rc > 0 and rc <= MAX_UNITS and rl >= 0 and rr >= 0 and rh >= 0 and rh <= MAX_HOLD then
    b = b or {{c = 0, r = 0, l = 0, t = 0, h = 0, p = false, n = 0, o = 0, i = 0}}
    refill(b)
    local level = math.min(rl, rc)
    if b.p and (b.r > 0 or rr > 0) then
      roll(b)
      b.l = math.max(math.min(b.l, level), level - (b.n + b.o))
    else
      b.l = level
    end
    b.c = rc
    if rr > 0 then b.r = rr end
    -- With no known rate and no reset, the first probe goes the short default from now.
    if b.r <= 0 and rh == 0 then rh = PROBE end
    b.h = now + rh
    b.p = true
  end
  if b then
    if not known and unmetered[d].u > 0 then
      -- Made now: at most the capacity less what went before, which is on its way.
      b.l = math.max(math.min(b.l, b.c - unmetered[d].u), -b.c)
      booked(b, unmetered[d].u)
    end
    unmetered[d].u = 0
    refill(b)
    b.l = spend(b, num(ARGV[a + 7]) or 0)
    longest = math.max(longest, need(b, num(ARGV[a + 8]) or 0))
  end
  buckets[d] = b
end
local reserved = 0
local leased = {{'0', '0', '0', '0'}}
if longest <= (num(ARGV[{PACE_ARGS_PER_DIMENSION} * 4 + 1]) or 0) and longest <= MAX_HOLD then
  reserved = 1
  for d = 0, 3 do
    local b = buckets[d]
    if b then
      local take = num(ARGV[{PACE_ARGS_PER_DIMENSION} * d + 8]) or 0
      if b.r <= 0 and short(b, take) then b.h = now + math.min(longest + PROBE, MAX_HOLD) end
      b.l = take_units(b, take)
      booked(b, take)
      local lease = num(ARGV[{PACE_ARGS_PER_DIMENSION} * d + 9]) or 0
      if longest == 0 and lease > 0 then
        lease = math.min(lease, math.max(b.l, 0))
        b.l = b.l - lease
        booked(b, lease)
        leased[d + 1] = fmt(lease)
      end
    end
  end
end
for d = 0, 3 do
  local take = num(ARGV[{PACE_ARGS_PER_DIMENSION} * d + 8]) or 0
  local m = unmetered[d]
  if reserved == 1 and buckets[d] == nil and take > 0 then
    if m.u <= 0 then m.w = now end
    m.u = math.min(m.u + take, MAX_UNITS)
  end
  if m.u > 0 then
    redis.call('HSET', KEYS[1], 'u' .. d, fmt(m.u), 'w' .. d, fmt(m.w))
  elseif fields['u' .. d] ~= nil or fields['w' .. d] ~= nil then
    redis.call('HDEL', KEYS[1], 'u' .. d, 'w' .. d)
  end
end
local full = 0
local views = {{}}
for d = 0, 3 do
  local b = buckets[d]
  if b and not (num(b.l) and num(b.c) and num(b.r) and num(b.h) and num(b.t) and num(b.n) and num(b.o) and num(b.i)) then
    drop('c' .. d, 'r' .. d, 'l' .. d, 't' .. d, 'h' .. d, 'p' .. d, 'n' .. d, 'o' .. d, 'i' .. d)
    b = nil
  end
  if b then
    redis.call('HSET', KEYS[1], 'c' .. d, fmt(b.c), 'r' .. d, fmt(b.r), 'l' .. d, fmt(b.l),
      't' .. d, fmt(b.t), 'h' .. d, fmt(b.h), 'p' .. d, b.p and 1 or 0,
      'n' .. d, fmt(b.n), 'o' .. d, fmt(b.o), 'i' .. d, fmt(b.i))
    if b.l < b.c then
      if b.r > 0 then
        full = math.max(full, math.max(b.h - now, 0) + (b.c - b.l) / b.r * 1000)
      else
        full = MAX_HOLD
      end
    end
    views[d + 1] = {{fmt(b.c), fmt(b.l), fmt(b.r), fmt(math.max(b.h - now, 0))}}
  else
    views[d + 1] = {{}}
  end
end
if not (full < MAX_HOLD) then full = MAX_HOLD end
redis.call('PEXPIRE', KEYS[1], fmt(math.ceil(full + (num(ARGV[{PACE_ARGS_PER_DIMENSION} * 4 + 3]) or 0))))
return {{fmt(now), reserved, fmt(math.min(longest, MAX_HOLD)), replicas, views[1], views[2], views[3], views[4], leased, repaired}}"
    ))
});
