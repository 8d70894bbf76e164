-- Minimal Neovim (0.7+) set-up for synclint's language server: every Python buffer is attached to one
-- `synclint lsp` per project root (the folder holding pyproject.toml, .synclint.toml or .git).
-- docs/editors.md shows the same lines; tests/lsp/nvim/test.lua runs them headless in CI.
vim.cmd('filetype on')
local synclint = vim.env.SYNCLINT or 'synclint'

local function root_of(file)
  local dir = vim.fn.fnamemodify(file, ':p:h')
  local marker = vim.fn.findfile('pyproject.toml', dir .. ';')
  if marker == '' then marker = vim.fn.findfile('.synclint.toml', dir .. ';') end
  if marker == '' then marker = vim.fn.finddir('.git', dir .. ';') end
  return marker ~= '' and vim.fn.fnamemodify(marker, ':p:h') or dir
end

local clients = {}  -- root -> client id
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'python',
  callback = function(args)
    local root = vim.env.SYNCLINT_ROOT or root_of(vim.api.nvim_buf_get_name(args.buf))
    if not clients[root] then
      clients[root] = vim.lsp.start_client({
        name = 'synclint',
        cmd = { synclint, 'lsp' },
        root_dir = root,
        init_options = { probeReport = 'synclint-probe.json' },
      })
    end
    vim.lsp.buf_attach_client(args.buf, clients[root])
  end,
})
