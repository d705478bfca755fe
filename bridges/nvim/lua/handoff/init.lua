-- SPDX-License-Identifier: MIT OR Apache-2.0
-- Handoff for Neovim (docs/documents.md §8): a `handoff session` job that
-- speaks JSON lines (docs/cli.md "handoff session"). The current buffer's
-- file is offered as an `org.neovim.nvim.edit` activity with the cursor's
-- place; an activity of that type continued here opens its file there.
-- Lua only, Neovim 0.7 APIs only (Debian 12 ships 0.7.2).
local M = {}

local APP = 'org.neovim.nvim'
local TYPE = 'org.neovim.nvim.edit'
-- The project's bridges share one team (docs/agent.md §13): an nvim here
-- continues what an nvim with this plugin offers on another device.
local TEAM = 'LIBHANDOFF'
local URL_KEY = 'NSUserActivityDocumentURLKey'
local KEPT_LINES = 20
-- The command, unless g:handoff_program names one; `make install` writes
-- the installed command's path here.
local PROGRAM = 'handoff'

local state = {
  job = nil, -- the session's job id while it runs
  ready = nil, -- its "ready" line: app, team, via, device
  published = nil, -- what it offers now
  offered = {}, -- what other devices offer that this nvim continues
  last_sent = nil, -- the last publish line sent: only changes are sent
  offered_buf = nil, -- the buffer whose file is offered
  offering = nil, -- its path, line and column as last sent
  sent = 0, -- publish lines sent
  acknowledged = 0, -- "published" lines read (each publish gets one)
  continued = nil, -- our activity last continued on another device
  restored = nil, -- the last activity continued here
  errors = {}, -- the session's last error lines
  stderr = {}, -- its last lines on stderr
  exit = nil, -- its exit status once it ended
  why_not = nil, -- why it is not running
  leaving = false,
}

local function keep(list, item)
  table.insert(list, item)
  if #list > KEPT_LINES then
    table.remove(list, 1)
  end
end

local function notify(text, level)
  vim.notify('Handoff: ' .. text, level or vim.log.levels.INFO)
end

function M.enabled()
  local value = vim.g.handoff_enabled
  return not (value == false or value == 0)
end

local function send(message)
  if not state.job then
    return false
  end
  local ok = pcall(vim.fn.chansend, state.job, vim.json.encode(message) .. '\n')
  return ok
end

-- A path as a file: URL, every byte but unreserved ones and "/" %-encoded.
local function file_url(path)
  local encoded = path:gsub('[^%w%-%._~/]', function(c)
    return string.format('%%%02X', c:byte())
  end)
  return 'file://' .. encoded
end

-- The local path of a file: URL (no host, or localhost); nil otherwise.
local function path_of(url)
  local rest = url:match('^[Ff][Ii][Ll][Ee]:(.*)$')
  if not rest then
    return nil
  end
  rest = rest:gsub('[?#].*$', '')
  local path
  if rest:sub(1, 2) == '//' then
    local host, p = rest:sub(3):match('^([^/]*)(/.*)$')
    if not host or (host ~= '' and host:lower() ~= 'localhost') then
      return nil
    end
    path = p
  elseif rest:sub(1, 1) == '/' then
    path = rest
  else
    return nil
  end
  path = path:gsub('%%(%x%x)', function(hex)
    return string.char(tonumber(hex, 16))
  end)
  if path:find('%z') then
    return nil
  end
  return path
end

-- The file a buffer edits, when it is one worth offering: named, a normal
-- buffer (not help, terminal, quickfix, nofile, prompt), on disk.
local function document(buf)
  if vim.bo[buf].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  local path = vim.fn.fnamemodify(name, ':p')
  if vim.fn.filereadable(path) ~= 1 then
    return nil -- offered once written
  end
  return path
end

-- Characters before byte `byte` of `text` (0 when it cannot tell).
local function characters(text, byte)
  local ok, count = pcall(vim.str_utfindex, text, math.min(byte, #text))
  return ok and count or byte
end

local function integer(value)
  if type(value) == 'number' and value == math.floor(value) then
    return value
  end
  return nil
end

local function clamp(value, low, high)
  return math.max(low, math.min(value, high))
end

-- Offers the current buffer's file and the cursor's place (line and
-- column from 1, the column in characters).
function M.offer()
  if not state.job then
    return
  end
  local buf = vim.api.nvim_get_current_buf()
  local path = document(buf)
  if not path then
    return
  end
  local cursor = vim.api.nvim_win_get_cursor(0)
  local text = vim.api.nvim_buf_get_lines(buf, cursor[1] - 1, cursor[1], false)[1] or ''
  local column = characters(text, cursor[2]) + 1
  local line = vim.json.encode({
    publish = {
      type = TYPE,
      title = vim.fn.fnamemodify(path, ':t'),
      user_info = {
        [URL_KEY] = { ['$url'] = file_url(path) },
        line = cursor[1],
        column = column,
      },
    },
  })
  if line == state.last_sent then
    return
  end
  if pcall(vim.fn.chansend, state.job, line .. '\n') then
    state.last_sent = line
    state.offered_buf = buf
    state.offering = { path = path, line = cursor[1], column = column }
    state.sent = state.sent + 1
  end
end

function M.withdraw()
  if send({ withdraw = vim.empty_dict() }) then
    state.last_sent = nil
    state.offered_buf = nil
    state.offering = nil
  end
end

-- Opens the file of an activity continued here, the cursor where it was.
local function restore(body)
  local info = type(body.user_info) == 'table' and body.user_info or {}
  local url = info[URL_KEY]
  if type(url) == 'table' then
    url = url['$url']
  end
  local title = type(body.title) == 'string' and body.title or 'a file'
  local path = type(url) == 'string' and path_of(url) or nil
  if not path then
    notify('continued ' .. title .. ', which names no file here', vim.log.levels.WARN)
    return
  end
  -- :drop edits it in this window, or goes to the window showing it, or
  -- splits when this buffer has changes that cannot be left.
  local ok, err = pcall(vim.cmd, 'drop ' .. vim.fn.fnameescape(path))
  if not ok then
    notify('cannot open ' .. path .. ': ' .. tostring(err), vim.log.levels.WARN)
    return
  end
  local count = vim.api.nvim_buf_line_count(0)
  local line = clamp(integer(info.line) or 1, 1, count)
  local text = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1] or ''
  local length = characters(text, #text)
  local column = clamp(integer(info.column) or 1, 1, math.max(length, 1))
  local byte_ok, byte = pcall(vim.str_byteindex, text, column - 1)
  vim.api.nvim_win_set_cursor(0, { line, byte_ok and byte or 0 })
  pcall(vim.cmd, 'normal! zv')
  local device = type(body.device) == 'table' and body.device.name or nil
  state.restored = { id = body.id, path = path, line = line, column = column, device = device }
  notify('continued ' .. vim.fn.fnamemodify(path, ':t') .. (device and (' from ' .. device) or ''))
  -- Offered from here now, at the place it opened at.
  M.offer()
end

local handlers = {
  ready = function(body)
    state.ready = body
  end,
  published = function(body)
    state.published = body
    state.acknowledged = state.acknowledged + 1
  end,
  withdrawn = function()
    state.published = nil
  end,
  offered = function(body)
    state.offered = type(body) == 'table' and body or {}
  end,
  ['continue'] = function(body)
    if type(body) == 'table' and body.type == TYPE then
      vim.schedule(function()
        restore(body)
      end)
    end
  end,
  continued = function(body)
    state.continued = body
  end,
  failed = function(body)
    local message = type(body.error) == 'table' and body.error.message or 'unknown error'
    keep(state.errors, body)
    notify('could not continue: ' .. tostring(message), vim.log.levels.WARN)
  end,
  error = function(body)
    keep(state.errors, body)
  end,
}

local function handle(text)
  if text == '' then
    return
  end
  -- JSON null as nil: no vim.NIL to trip over (or to deepcopy).
  local ok, message = pcall(vim.json.decode, text, { luanil = { object = true, array = true } })
  if not ok or type(message) ~= 'table' then
    keep(state.errors, { message = 'not JSON from the session: ' .. text:sub(1, 200) })
    return
  end
  for event, body in pairs(message) do
    local handler = handlers[event]
    if handler then
      handler(body)
    end
  end
end

function M.start()
  if state.job then
    return
  end
  local program = vim.g.handoff_program or PROGRAM
  if vim.fn.executable(program) ~= 1 then
    state.why_not = program .. ' is not installed (Debian: the handoff package)'
    return
  end
  local command = { program, 'session', '--app', APP, '--type', TYPE, '--team', TEAM }
  for _, argument in ipairs(vim.g.handoff_session_arguments or {}) do
    table.insert(command, argument)
  end
  local partial = ''
  local job = vim.fn.jobstart(command, {
    on_stdout = function(_, data)
      -- data[1] continues the last partial line; the last item is partial.
      data[1] = partial .. data[1]
      partial = table.remove(data)
      for _, text in ipairs(data) do
        handle(text)
      end
    end,
    on_stderr = function(_, data)
      for _, text in ipairs(data) do
        if text ~= '' then
          keep(state.stderr, text)
        end
      end
    end,
    on_exit = function(_, code)
      state.job = nil
      state.exit = code
      state.ready = nil
      state.published = nil
      state.offered = {}
      if not state.leaving and code ~= 0 then
        state.why_not = 'the session ended with status ' .. code
        notify(state.why_not .. ': ' .. (state.stderr[#state.stderr] or ''), vim.log.levels.WARN)
      end
    end,
  })
  if job <= 0 then
    state.why_not = 'cannot start ' .. program
    return
  end
  state.job = job
  state.why_not = nil
  local group = vim.api.nvim_create_augroup('handoff', { clear = true })
  -- VimEnter: after the startup commands (`nvim +12 file`), where the cursor is.
  vim.api.nvim_create_autocmd({ 'VimEnter', 'BufEnter', 'CursorHold', 'BufWritePost' }, {
    group = group,
    callback = function()
      M.offer()
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout' }, {
    group = group,
    callback = function(args)
      if args.buf == state.offered_buf then
        M.withdraw()
      end
    end,
  })
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = group,
    callback = function()
      M.stop()
    end,
  })
end

-- Withdraws and ends the session (the end of its input withdraws too).
function M.stop()
  state.leaving = true
  local job = state.job
  if not job then
    return
  end
  M.withdraw()
  pcall(vim.fn.chanclose, job, 'stdin')
  vim.fn.jobwait({ job }, 1000)
end

-- Continues here what another device offers: `id`, else the newest.
function M.continue(id)
  local chosen
  for _, activity in ipairs(state.offered) do
    if id == nil or activity.id == id or activity.id:lower() == id:lower() then
      chosen = activity -- oldest first: the last match is the newest
    end
  end
  if not chosen then
    notify(id and ('no other device offers ' .. id) or 'no other device offers anything to continue here',
      vim.log.levels.WARN)
    return
  end
  send({ ['continue'] = { id = chosen.id } })
end

-- What the plugin knows, for scripts and tests (a copy).
function M.state()
  local copy = vim.deepcopy(state)
  copy.running = state.job ~= nil
  copy.job = nil
  copy.last_sent = nil
  return copy
end

local function describe(activity)
  local device = type(activity.device) == 'table' and activity.device.name or '?'
  local title = type(activity.title) == 'string' and activity.title or activity.type
  return string.format('%s from %s (%s)', title, device, activity.id)
end

function M.print_status()
  local lines = {}
  if not M.enabled() then
    table.insert(lines, 'Handoff is off (g:handoff_enabled is false).')
  elseif not state.job then
    table.insert(lines, 'Handoff is not running: ' .. (state.why_not or 'not started'))
  elseif not state.ready then
    table.insert(lines, 'Handoff is starting.')
  else
    local r = state.ready
    local device = type(r.device) == 'table' and r.device.name or '?'
    table.insert(lines, string.format('Handoff: %s (team %s) on %s, through %s.', r.app, r.team, device,
      r.via == 'agent' and 'the handoff agent' or 'an engine of its own'))
  end
  if state.published then
    local p = state.published
    table.insert(lines, string.format('Offering: %s (%s)', tostring(p.title), p.id))
  end
  if #state.offered > 0 then
    table.insert(lines, 'Other devices offer (:HandoffContinue [ID]):')
    for _, activity in ipairs(state.offered) do
      table.insert(lines, '  ' .. describe(activity))
    end
  end
  if state.restored then
    local r = state.restored
    table.insert(lines, string.format('Last continued here: %s, line %d, column %d', r.path, r.line, r.column))
  end
  if state.continued then
    table.insert(lines, 'Last continued elsewhere: ' .. tostring(state.continued.id))
  end
  local last = state.errors[#state.errors]
  if last then
    local e = type(last.error) == 'table' and last.error or last
    table.insert(lines, 'Last error: ' .. tostring(e.message))
  end
  if not state.job and #state.stderr > 0 then
    table.insert(lines, 'Its last words: ' .. state.stderr[#state.stderr])
  end
  vim.api.nvim_echo({ { table.concat(lines, '\n') } }, false, {})
end

return M
