// The console's own primitives (SPEC §11 visual system). Radix primitives give behaviour and
// accessibility (focus traps, roles, keyboard) without styles; the look is ours, from tokens.css.
// Icons: lucide-react only. Every feature imports from here, never from radix-ui directly.
export { Badge, CountBadge, type BadgeTone } from './badge'
export { Button, IconButton, type ButtonVariant } from './button'
export { CodeBlock, CopyButton } from './copy-button'
export { ConfirmDialog, Dialog } from './dialog'
export { Drawer } from './drawer'
export { DiffView } from './diff-view'
export { EmptyState, ErrorBanner, Loading } from './empty-state'
export { Field } from './field'
export { Kbd } from './kbd'
export { NoteHiddenCharacters } from './note-hidden-characters'
export { Tabs } from './tabs'
export { TextAgent } from './text-agent'
export { ThemeToggle } from './theme-toggle'
export { applyTheme, useThemeStore, type ThemeChoice } from './theme-store'
export { TimeAgo, ageOf, useNow } from './time-ago'
export { ViewHeader } from './view-header'
