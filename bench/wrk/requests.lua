-- wrk script of the bench harness (bench/load.py writes its inputs).
--
-- BENCH_REQUESTS names a file of requests, one a line: METHOD <tab> PATH <tab> BODY (the
-- body may be empty). Each connection sends them in turn, so a cycle can be all the pages
-- of a tools/list. Headers come from wrk's -H flags.
-- BENCH_UNIQUE_IDS=1 gives each request its own JSON-RPC id (the body's "id":1 replaced):
-- calls in flight at once on one MCP session must not share an id.
-- BENCH_MAX_REQUESTS, when set, stops each thread after that many responses and prints
-- BENCH_LIMIT_REACHED.
-- Every response is checked: a status other than 2xx counts as bad; a JSON-RPC error or a
-- tool result with "isError": true as a tool error. done() prints one line "BENCH_RESULT {json}".

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

-- Globals, not locals: done() reads them from each thread with thread:get().
requests = {}
sources = {}
unique_ids = false
sent = 0
position = 0
answered = 0
bad = 0
tool_errors = 0
limit = 0
first_bad = ""

function init(args)
  for line in io.lines(os.getenv("BENCH_REQUESTS")) do
    local method, path, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
    if body == "" then
      body = nil
    end
    table.insert(requests, wrk.format(method, path, nil, body))
    table.insert(sources, { method, path, body })
  end
  limit = tonumber(os.getenv("BENCH_MAX_REQUESTS") or "") or 0
  unique_ids = os.getenv("BENCH_UNIQUE_IDS") == "1"
end

function request()
  position = position % #requests + 1
  if not unique_ids then
    return requests[position]
  end
  sent = sent + 1
  local method, path, body = unpack(sources[position])
  if body then
    body = body:gsub('"id":1,', '"id":' .. sent .. ",", 1)
  end
  return wrk.format(method, path, nil, body)
end

function response(status, headers, body)
  answered = answered + 1
  if status < 200 or status > 299 then
    bad = bad + 1
    if first_bad == "" then
      first_bad = status .. " " .. string.sub(body or "", 1, 200)
    end
  elseif body and (body:find('"isError":%s*true') or body:find('"error":%s*{%s*"code"')) then
    tool_errors = tool_errors + 1
    if first_bad == "" then
      first_bad = string.sub(body, 1, 200)
    end
  end
  if limit > 0 and answered == limit then
    -- wrk would wait out its -d; the harness sends SIGINT when it reads this line.
    io.write("BENCH_LIMIT_REACHED\n")
    io.flush()
    wrk.thread:stop()
  end
end

local function quote(text)
  return '"' .. text:gsub('[%c"\\]', function(c)
    return string.format("\\u%04x", string.byte(c))
  end) .. '"'
end

function done(summary, latency, requests)
  local answered_total, bad_total, tool_errors_total, first = 0, 0, 0, ""
  for _, thread in ipairs(threads) do
    answered_total = answered_total + thread:get("answered")
    bad_total = bad_total + thread:get("bad")
    tool_errors_total = tool_errors_total + thread:get("tool_errors")
    if first == "" then
      first = thread:get("first_bad")
    end
  end
  local errors = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"answered":%d,"bad":%d,'
      .. '"tool_errors":%d,"socket_errors":%d,"timeouts":%d,"p50_us":%d,"p90_us":%d,'
      .. '"p99_us":%d,"max_us":%d,"mean_us":%.1f,"first_bad":%s}\n',
    summary.requests, summary.duration, summary.bytes, answered_total, bad_total,
    tool_errors_total, errors.connect + errors.read + errors.write, errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean,
    quote(first)
  ))
end
