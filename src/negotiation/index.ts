export { declaredModes, allowedModes, narrowCapabilities, modesEqual, hasMode, NO_MODES, type Modes } from './capabilities.js';
