export type { ElicitationRead, InboundKind, OutboundKind, RequirementEntry, WireCodec } from './codec.js';
export { rev2025_11_25 } from './rev2025-11-25.js';
