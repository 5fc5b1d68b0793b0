export { ResourcesView } from './components/view-resources'
