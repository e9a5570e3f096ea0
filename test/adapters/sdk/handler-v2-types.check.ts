// Compile-time check (typecheck only): the handler fits both SDKs' setRequestHandler.
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createElicitationHandler } from '../../../src/adapters/sdk/handler.js';
import type { ConsentUi } from '../../../src/adapters/sdk/consent-ui.js';
import { createGuard } from '../../../src/core/guard.js';

declare const ui: ConsentUi;
const guard = createGuard();
new ClientV2({ name: 'h', version: '1' }).setRequestHandler('elicitation/create', createElicitationHandler(guard, ui));
new ClientV1({ name: 'h', version: '1' }).setRequestHandler(ElicitRequestSchema, createElicitationHandler(guard, ui));
