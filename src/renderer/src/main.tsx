import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { AppShell } from './app/app-shell'
import { applyTheme, useThemeStore } from './ui'
import './ui/tokens.css'
import './ui/base.css'
import './app/shell.css'
import './styles.css'

applyTheme(useThemeStore.getState().choice)

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppShell />
  </StrictMode>
)
