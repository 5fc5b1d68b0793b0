export { SystemFooter } from './components/footer-system'
