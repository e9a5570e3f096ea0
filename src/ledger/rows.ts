/**
 * Reading stored rows back into the book's records, shared by the SQLite and PostgreSQL ledgers so
 * they refuse a corrupt row alike. Each store names its own corruption error (`corrupt`).
 */
import { parseNavigationRecord } from '../flow/records.js';
import { isFlowState, isFlowTrigger, type Flow } from '../flow/states.js';
import type { GuardError } from '../protocol/errors.js';
import type { FlowTransition, StoredNavigation } from './types.js';

export interface NavigationRow {
  id: string;
  state: string;
  flow_trigger: string | null;
  created_at: number;
  updated_at: number;
  record: string;
}

export interface TransitionRow {
  navigation_id: string;
  from_state: string | null;
  to_state: string;
  flow_trigger: string | null;
  at: number;
}

export interface RowReader {
  /** A record stored as JSON, checked by its parser. */
  parseStored<T>(parse: (value: unknown) => T, text: string): T;
  flowOf(row: NavigationRow): Flow;
  storedOf(row: NavigationRow): StoredNavigation;
  transitionOf(row: TransitionRow): FlowTransition;
}

export function rowReader(corrupt: (message: string) => GuardError): RowReader {
  function parseStored<T>(parse: (value: unknown) => T, text: string): T {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw corrupt('a stored record is not JSON');
    }
    try {
      return parse(value);
    } catch (error) {
      throw corrupt((error as Error).message);
    }
  }

  function flowOf(row: NavigationRow): Flow {
    if (!isFlowState(row.state)) throw corrupt(`navigation ${row.id} has an unknown state`);
    if (row.flow_trigger !== null && !isFlowTrigger(row.flow_trigger)) throw corrupt(`navigation ${row.id} has an unknown trigger`);
    return Object.freeze({ id: row.id, state: row.state, trigger: row.flow_trigger, createdAt: row.created_at, updatedAt: row.updated_at });
  }

  return {
    parseStored,
    flowOf,
    storedOf: (row) => Object.freeze({ record: parseStored(parseNavigationRecord, row.record), flow: flowOf(row) }),
    transitionOf(row) {
      const from = row.from_state;
      if ((from !== null && !isFlowState(from)) || !isFlowState(row.to_state))
        throw corrupt(`navigation ${row.navigation_id} has a history entry with an unknown state`);
      if (row.flow_trigger !== null && !isFlowTrigger(row.flow_trigger))
        throw corrupt(`navigation ${row.navigation_id} has a history entry with an unknown trigger`);
      return Object.freeze({ navigationId: row.navigation_id, from, to: row.to_state, trigger: row.flow_trigger, at: row.at });
    },
  };
}
