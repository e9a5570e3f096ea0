export { guardTransport } from './transport.js';
