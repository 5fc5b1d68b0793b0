import { Monitor, Moon, Sun } from 'lucide-react'
import { nextTheme, useThemeStore } from './theme-store'

const labels = { system: 'Theme: follows the system', light: 'Theme: light', dark: 'Theme: dark' } as const

/** The theme button in the sidebar: cycles system → light → dark. */
export function ThemeToggle() {
  const choice = useThemeStore((state) => state.choice)
  const setChoice = useThemeStore((state) => state.setChoice)
  const Icon = choice === 'system' ? Monitor : choice === 'light' ? Sun : Moon
  return (
    <button
      type="button"
      className="btn btn-ghost btn-sm theme-toggle"
      onClick={() => setChoice(nextTheme(choice))}
      data-testid="theme-toggle"
      aria-label={`${labels[choice]}. Change theme`}
    >
      <Icon size={14} aria-hidden="true" />
      {choice === 'system' ? 'System' : choice === 'light' ? 'Light' : 'Dark'}
    </button>
  )
}
