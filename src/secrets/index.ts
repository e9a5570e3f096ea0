export {
  findSecret,
  findSecretOrToken,
  looksRandomToken,
  mayHoldSecret,
  mayHoldSecretCounting,
  mentionsKeyPrefix,
  shannonEntropy,
  type SecretKind,
  type SecretMatch,
} from './patterns.js';
export { findCardNumber, looksLikeCardNumber, luhnValid } from './card.js';
export { allSeedWords, isSeedPhrase } from './seed.js';
export { looksLikeRandomSecret, scanValue, type ScanOptions } from './scan.js';
