export { PanelDataDirectory } from './components/panel-data-directory'
export { SystemFooter } from './components/footer-system'
export { useSystemStore } from './store/system-store'
export { PanelConsoleToken } from './components/panel-console-token'
