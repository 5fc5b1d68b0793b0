export { HistoryView } from './components/view-history'
