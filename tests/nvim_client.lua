-- Neovim as a real LSP client of `codeloupe serve` (tests/test_nvim.py).
--
--   nvim --headless -u NONE -i NONE -n -c "luafile tests/nvim_client.lua"
--
-- Reads its settings from $CODELOUPE_NVIM (JSON: cmd, root, file, position,
-- query, init_options, out), opens the file, starts the server with Neovim's own
-- LSP client, sends a codeloupe.server.search at once (the index may still be
-- opening), waits until the index is ready, sends documentSymbol, call
-- hierarchy (prepare + incoming), hover, codeLens and a codeloupe.server.search
-- executeCommand, and writes the answers as one JSON object to `out`. Exits 0, or
-- with `cquit 2` after writing {"error": ...} when something failed.

local cfg = vim.json.decode(os.getenv("CODELOUPE_NVIM"))
local out = { nvim = tostring(vim.version()) }

local function finish(code)
  local f = assert(io.open(cfg.out, "w"))
  f:write(vim.json.encode(out))
  f:close()
  if code == 0 then
    vim.cmd("qa!")
  else
    vim.cmd("cquit " .. code)
  end
end

local function run()
  vim.cmd("edit " .. vim.fn.fnameescape(cfg.file))
  local bufnr = vim.api.nvim_get_current_buf()
  local attached = false
  local config = {
    name = "codeloupe",
    cmd = cfg.cmd,
    root_dir = cfg.root,
    workspace_folders = { { uri = vim.uri_from_fname(cfg.root), name = "repo" } },
    init_options = cfg.init_options,
    on_attach = function() attached = true end,
  }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config, { bufnr = bufnr })
  else -- Neovim 0.7
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  if not vim.wait(20000, function() return attached end, 20) then
    error("the server did not attach within 20 s")
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local method_form = vim.fn.has("nvim-0.11") == 1

  local function request(method, params, timeout)
    local resp, err
    if method_form then
      resp, err = client:request_sync(method, params, timeout or 20000, bufnr)
    else
      resp, err = client.request_sync(method, params, timeout or 20000, bufnr)
    end
    if not resp then error(method .. ": " .. tostring(err)) end
    if resp.err then error(method .. ": " .. vim.inspect(resp.err)) end
    return resp.result
  end

  local function command(name, argument)
    return request("workspace/executeCommand", { command = name, arguments = { argument } })
  end

  -- right after the start, as an editor does: the index may still be opening
  out.early_search = command("codeloupe.server.search", { query = cfg.query, k = 3 })

  local deadline = vim.loop.now() + 90000
  while true do
    local st = command("codeloupe.server.status", vim.empty_dict())
    if st.state == "ready" then break end
    if st.state == "failed" or vim.loop.now() > deadline then
      error("index not ready: " .. vim.json.encode(st))
    end
    vim.wait(100)
  end

  local doc = { uri = vim.uri_from_bufnr(bufnr) }
  local at = { textDocument = doc, position = cfg.position }
  out.attached = true
  out.documentSymbol = request("textDocument/documentSymbol", { textDocument = doc })
  out.prepare = request("textDocument/prepareCallHierarchy", at)
  out.incoming = request("callHierarchy/incomingCalls", { item = out.prepare[1] })
  out.hover = request("textDocument/hover", at)
  out.codeLens = request("textDocument/codeLens", { textDocument = doc })
  out.search = command("codeloupe.server.search", { query = cfg.query, k = 3 })

  if method_form then client:stop() else client.stop() end
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
end

local ok, err = pcall(run)
if ok then
  finish(0)
else
  out.error = tostring(err)
  finish(2)
end
