export { AgentsView } from './components/view-agents'
