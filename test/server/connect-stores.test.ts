import { join } from 'node:path';
import { afterAll, describe } from 'vitest';
import { MemoryConnectFlowStore } from '../../src/server/connect-store.js';
import { PostgresConnectFlowStore } from '../../src/server/postgres-store.js';
import { SqliteConnectFlowStore } from '../../src/server/sqlite-store.js';
import { dropSchema, freshSchema, postgresUrl } from '../ledger/postgres-support.js';
import { tempDir } from '../ledger/support.js';
import { connectStoreContract } from './connect-store-contract.js';

connectStoreContract('MemoryConnectFlowStore', async () => ({
  store: new MemoryConnectFlowStore(),
  reopen: null,
  dispose: async () => undefined,
}));

connectStoreContract('SqliteConnectFlowStore', async () => {
  const tmp = tempDir('mcp-eg-connect-');
  const file = join(tmp.dir, 'connect.sqlite');
  let store = await SqliteConnectFlowStore.open(file);
  return {
    store,
    reopen: async () => {
      store.close();
      store = await SqliteConnectFlowStore.open(file);
      return store;
    },
    dispose: async () => {
      store.close();
      tmp.remove();
    },
  };
});

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

describe.skipIf(postgresUrl === null)('PostgreSQL', () => {
  connectStoreContract('PostgresConnectFlowStore', async () => {
    const schema = freshSchema('cs');
    schemas.push(schema);
    let store = await PostgresConnectFlowStore.connect(postgresUrl!, { schema });
    return {
      store,
      reopen: async () => {
        await store.close();
        store = await PostgresConnectFlowStore.connect(postgresUrl!, { schema });
        return store;
      },
      dispose: () => store.close(),
    };
  });
});
