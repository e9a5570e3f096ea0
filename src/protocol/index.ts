export * from './jsonrpc.js';
export * from './wire.js';
export * from './errors.js';
export * from './digest.js';
export * from './verdict.js';
