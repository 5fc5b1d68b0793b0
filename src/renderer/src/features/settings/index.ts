export { SettingsView } from './components/view-settings'
