export { Transport as Link } from './transport';
