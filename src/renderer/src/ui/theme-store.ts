import { create } from 'zustand'

/** The operator's theme choice: follow the OS, or a fixed light or dark theme. */
export type ThemeChoice = 'system' | 'light' | 'dark'

const storageKey = 'airlock.theme'

function stored(): ThemeChoice {
  try {
    const value = window.localStorage.getItem(storageKey)
    return value === 'light' || value === 'dark' ? value : 'system'
  } catch {
    return 'system'
  }
}

// Absent in jsdom (component tests): the console then starts dark.
const prefersLight = typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: light)') : undefined

/**
 * Puts the theme on `<html data-theme>`: the fixed choice, or for `system` what the OS prefers
 * now (and again whenever the OS changes, see below). One attribute decides, so tokens.css
 * defines each theme once.
 */
export function applyTheme(choice: ThemeChoice): void {
  document.documentElement.dataset.theme = choice === 'system' ? (prefersLight?.matches ? 'light' : 'dark') : choice
}

/** The theme store: the choice, kept in localStorage (a display preference, not Airlock data). */
export const useThemeStore = create<{ choice: ThemeChoice; setChoice(choice: ThemeChoice): void }>((set) => ({
  choice: stored(),
  setChoice(choice) {
    try {
      window.localStorage.setItem(storageKey, choice)
    } catch {
      // A storage refusal only loses the preference across reloads.
    }
    applyTheme(choice)
    set({ choice })
  }
}))

/** The next choice in the toggle's cycle: system → light → dark → system. */
export function nextTheme(choice: ThemeChoice): ThemeChoice {
  return choice === 'system' ? 'light' : choice === 'light' ? 'dark' : 'system'
}

// Another console window (or tab) changed the theme: follow it, so every window shows one choice.
window.addEventListener('storage', (event) => {
  if (event.key !== null && event.key !== storageKey) return
  const choice = stored()
  applyTheme(choice)
  useThemeStore.setState({ choice })
})

// The OS switched between light and dark: follow it while the choice is `system`.
prefersLight?.addEventListener('change', () => applyTheme(useThemeStore.getState().choice))
