-- wrk's script for the bench's load runs (`bench/load/wrk.ts` runs it): POSTs JSON bodies read
-- from a file, one per line, and prints what the run measured as one JSON line prefixed
-- `WRK_RESULT `.
--
--   wrk -t1 -c32 -d15s -s bench/load/wrk.lua http://127.0.0.1:4000/graphql -- bodies.txt random check
--
-- Arguments after `--`:
--   1. the bodies file: one JSON body per line (JSON.stringify never writes a raw newline);
--   2. `random`: a body drawn at random for each request; `cycle`: the bodies in turn, so that
--      none repeats before the list runs out;
--   3. `check`: read every answer, counting non-2xx ones and 2xx ones whose body has `"errors"`;
--      anything else: answers are not read (wrk skips parsing bodies when `response` is nil,
--      which saves it CPU), and non-2xx are wrk's own count of statuses above 399;
--   4. optional: an `Accept-Encoding` header to send with every request (answers stay encoded:
--      a compressed body is not searched for `"errors"`, so give it `nocheck`).

local threads = {}

-- Runs in the main Lua state: keep every thread, to sum their counters in done().
function setup(thread)
  table.insert(threads, thread)
end

-- Runs in each thread's own Lua state before it starts. Globals here are read back by done().
function init(args)
  local file, order, check, encoding = args[1], args[2], args[3], args[4]
  if file == nil or (order ~= "random" and order ~= "cycle") then
    error("usage: -- <bodies file> random|cycle check|nocheck, but got: " .. tostring(file) .. " " .. tostring(order))
  end
  -- Requests are formatted once here: building one per request would cost wrk more than sending it.
  prepared = {}
  local headers = { ["Content-Type"] = "application/json" }
  if encoding ~= nil and encoding ~= "" then headers["Accept-Encoding"] = encoding end
  for body in io.lines(file) do
    if body ~= "" then
      prepared[#prepared + 1] = wrk.format("POST", nil, headers, body)
    end
  end
  if #prepared == 0 then error("no request bodies in " .. file) end
  cycle = order == "cycle"
  next_index = 0
  sent, non2xx, graphql_errors = 0, 0, 0
  checked = check == "check"
  if not checked then response = nil end
  math.randomseed(os.time())
  -- Process CPU time (every thread's) as the run starts, in s: done() takes the difference.
  cpu_at_start = os.clock()
end

function request()
  sent = sent + 1
  if cycle then
    next_index = next_index % #prepared + 1
    return prepared[next_index]
  end
  return prepared[math.random(#prepared)]
end

local find, byte = string.find, string.byte

-- Whether `body` holds `"errors"`. LuaJIT's plain find stops at every byte equal to the pattern's
-- first, and a quote is every eighth byte of a JSON answer: so it looks for `rors"` (rarer) and
-- checks the three bytes before each hit, at about a third of the CPU on a 45 KB answer.
local function has_errors(body)
  local at = 1
  while true do
    local i = find(body, 'rors"', at, true)
    if i == nil then return false end
    local quote, e, r = byte(body, i - 3, i - 1)
    if quote == 34 and e == 101 and r == 114 then return true end
    at = i + 1
  end
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  elseif body ~= nil and has_errors(body) then
    graphql_errors = graphql_errors + 1
  end
end

-- Runs in the main Lua state once every thread has stopped: one JSON line for bench/load/wrk.ts.
function done(summary, latency, requests)
  local totals = { sent = 0, non2xx = 0, graphql_errors = 0 }
  local cpu_at_start, checked = math.huge, false
  for _, thread in ipairs(threads) do
    for name in pairs(totals) do totals[name] = totals[name] + thread:get(name) end
    cpu_at_start = math.min(cpu_at_start, thread:get("cpu_at_start"))
    checked = thread:get("checked")
  end
  local errors = summary.errors
  io.write(string.format(
    '\nWRK_RESULT {"durationUs":%d,"requests":%d,"sent":%d,"bytes":%d,'
      .. '"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"timeouts":%d,"statusErrors":%d,'
      .. '"checked":%s,"non2xx":%d,"graphqlErrors":%d,'
      .. '"latencyP50Us":%.1f,"latencyP99Us":%.1f,"latencyMeanUs":%.1f,"latencyMaxUs":%.1f,"cpuSeconds":%.4f}\n',
    summary.duration, summary.requests, totals.sent, summary.bytes,
    errors.connect, errors.read, errors.write, errors.timeout, errors.status,
    tostring(checked), totals.non2xx, totals.graphql_errors,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max, os.clock() - cpu_at_start))
end
