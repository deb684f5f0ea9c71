-- Run by TestNeovimAttaches: headless Neovim (0.7 API: start_client and
-- buf_attach_client) attaches to `shoal lsp`, reports the diagnostics it
-- receives, completes, edits the buffer (incremental sync) and reports
-- the diagnostics again. Lines go to the file named by SHOAL_NVIM_OUT.
local out = assert(io.open(os.getenv("SHOAL_NVIM_OUT"), "w"))
local function say(s) out:write(s .. "\n") out:flush() end
local bound = 60000 -- a bound on waiting, not a timing assertion

local id = vim.lsp.start_client({
  name = "shoal",
  cmd = { os.getenv("SHOAL_BIN"), "lsp" },
  root_dir = os.getenv("SHOAL_NVIM_DIR"),
})
say("client " .. tostring(id))
vim.cmd("edit " .. os.getenv("SHOAL_NVIM_FILE"))
local buf = vim.api.nvim_get_current_buf()
vim.bo[buf].filetype = "shoal"
vim.lsp.buf_attach_client(buf, id)

vim.wait(bound, function() return #vim.diagnostic.get(buf) > 0 end, 20)
for _, d in ipairs(vim.diagnostic.get(buf)) do
  say("diag " .. d.lnum .. ":" .. d.col .. " " .. d.message)
end

local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 1, character = 6 } }
local res = vim.lsp.buf_request_sync(buf, "textDocument/completion", params, bound)
for _, r in pairs(res or {}) do
  local items = r.result and (r.result.items or r.result) or {}
  for _, it in ipairs(items) do say("item " .. it.label) end
end

vim.api.nvim_buf_set_lines(buf, 1, 2, false, { "items.len() # ü😀" })
vim.wait(bound, function() return #vim.diagnostic.get(buf) == 0 end, 20)
say("after-edit " .. #vim.diagnostic.get(buf))

local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover",
  { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 1, character = 8 } }, bound)
for _, r in pairs(hover or {}) do
  if r.result then say("hover " .. r.result.contents.value:gsub("\n", " ")) end
end

vim.lsp.stop_client(id)
say("done")
out:close()
vim.cmd("qa!")
