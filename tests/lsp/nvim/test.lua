-- Headless Neovim against `synclint lsp` (ctest lsp.neovim): diagnostics on a training script, an edit
-- that moves a sync out of the loop clears it, then the cross-file case. Every wait has a deadline, so a
-- server that misbehaves fails the test instead of hanging it. Exit status 0 only when all checks pass.
local root = vim.env.SYNCLINT_ROOT
local timeout = tonumber(vim.env.SYNCLINT_WAIT_MS or '15000')

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local function code_of(d)
  if d.code then return d.code end
  return d.user_data and d.user_data.lsp and d.user_data.lsp.code
end

local function describe(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out, string.format('%s@%d:%d-%d', tostring(code_of(d)), d.lnum, d.col, d.end_col or -1))
  end
  return '{' .. table.concat(out, ', ') .. '}'
end

-- Waits until the buffer's synclint diagnostics are exactly `expected` ({code, lnum, col, end_col}...).
local function expect(buf, expected, what)
  local ok = vim.wait(timeout, function()
    local got = vim.diagnostic.get(buf)
    if #got ~= #expected then return false end
    table.sort(got, function(a, b) return a.lnum < b.lnum end)
    for i, e in ipairs(expected) do
      local d = got[i]
      if code_of(d) ~= e[1] or d.lnum ~= e[2] or d.col ~= e[3] or d.end_col ~= e[4] then return false end
    end
    return true
  end, 50)
  if not ok then fail(what .. ': got ' .. describe(buf)) end
  io.stderr:write('ok: ' .. what .. ' ' .. describe(buf) .. '\n')
end

vim.cmd('edit ' .. root .. '/train.py')
local train = vim.api.nvim_get_current_buf()
expect(train, { { 'SYNC001', 9, 14, 25 } }, 'train.py: loss.item() in the loop')

-- Line 10 (print(loss.item())) leaves the loop: dedented to the function's level.
vim.api.nvim_buf_set_lines(train, 9, 10, false, { '    print(loss.item())' })
expect(train, {}, 'train.py: the read left the loop')

vim.cmd('edit ' .. root .. '/utils.py')
local utils = vim.api.nvim_get_current_buf()
expect(utils, { { 'SYNC001', 1, 11, 22 } }, 'utils.py: helper called from the loop in train.py')

-- The call leaves the loop in train.py's buffer (never saved): utils.py's diagnostic goes.
vim.api.nvim_buf_set_lines(train, 8, 9, false, { '    log_loss(loss)' })
expect(utils, {}, 'utils.py: the call left the loop')

vim.cmd('qall!')
