import { MemoryLedger } from '../../src/ledger/memory.js';
import { ledgerContract } from './contract.js';

ledgerContract('MemoryLedger', async () => {
  const ledger = new MemoryLedger();
  return { ledger, dispose: () => ledger.close() };
});
