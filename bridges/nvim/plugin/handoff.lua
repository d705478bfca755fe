-- SPDX-License-Identifier: MIT OR Apache-2.0
-- Handoff for Neovim: the file being edited is offered to the person's
-- other devices, and a file continued here opens where the cursor was.
-- Opt out with `vim.g.handoff_enabled = false` (or `let g:handoff_enabled = 0`)
-- in your init file. See :help handoff.
if vim.g.loaded_handoff then
  return
end
vim.g.loaded_handoff = true

local handoff = require('handoff')

vim.api.nvim_create_user_command('HandoffStatus', function()
  handoff.print_status()
end, { desc = 'Handoff: what this Neovim offers and what the other devices offer' })

vim.api.nvim_create_user_command('HandoffContinue', function(args)
  handoff.continue(args.args ~= '' and args.args or nil)
end, { nargs = '?', desc = 'Handoff: continue here what another device offers (the newest, or ID)' })

if handoff.enabled() then
  handoff.start()
end
