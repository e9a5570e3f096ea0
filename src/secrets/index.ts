export { findSecret, findSecretOrToken, looksRandomToken, shannonEntropy, type SecretKind, type SecretMatch } from './patterns.js';
