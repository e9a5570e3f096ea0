/**
 * The collector each fault file registers its guards and connect services with. After the file's
 * tests it asserts the invariants for everything registered and appends the file's counters to the
 * run's JSONL file, which the global teardown sums (see `totals.ts`).
 */
import { appendFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';
import type { Guard } from '../../../src/core/guard.js';
import type { ConnectService } from '../../../src/server/connect.js';
import { countersFile, RUN_ENV, type FaultCounters } from './totals.js';

export interface Invariants {
  /** Registers a guard (block mode only: the invariant is about `onSensitive: "block"`) and returns it. */
  guard<G extends Guard>(guard: G): G;
  /** Registers a connect service and returns it. */
  service<S extends ConnectService>(service: S): S;
  /** Asserts the invariants for one guard. */
  expectGuard(guard: Guard): void;
  /** Asserts the invariants for one connect service. */
  expectService(service: ConnectService): void;
  /**
   * Registers an outside observer of stored tokens: how many were bound to a provider account that
   * is not the flow subject's (seen in the vault, whatever the services counted themselves).
   */
  vaultObserver(count: () => number): void;
  /** The counters summed over everything registered so far. */
  counters(): FaultCounters;
}

export function collectInvariants(file: string): Invariants {
  const guards: Guard[] = [];
  const services: ConnectService[] = [];
  const observers: (() => number)[] = [];
  const invariants: Invariants = {
    guard(guard) {
      expect(guard.policy.form.onSensitive, 'fault suites judge the block mode').toBe('block');
      guards.push(guard);
      return guard;
    },
    service(service) {
      services.push(service);
      return service;
    },
    expectGuard(guard) {
      const m = guard.metrics();
      expect(m.sensitiveFieldsLetThrough, 'sensitive fields let through').toBe(0);
      expect(m.completionNoticesAdvancingUnknown, 'unknown completion notices that advanced').toBe(0);
      expect(m.maxAcceptancesPerLineage, 'acceptances of one lineage').toBeLessThanOrEqual(1);
    },
    expectService(service) {
      expect(service.metrics().crossSubjectBindings, 'cross-subject bindings').toBe(0);
      expect(service.metrics().bindingsByOtherBrowser, 'bindings from another browser').toBe(0);
    },
    vaultObserver(count) {
      observers.push(count);
    },
    counters() {
      const metrics = guards.map((g) => g.metrics());
      const sum = (pick: (m: ReturnType<Guard['metrics']>) => number) => metrics.reduce((n, m) => n + pick(m), 0);
      const serviceMetrics = services.map((s) => s.metrics());
      return {
        file,
        guards: guards.length,
        connectServices: services.length,
        sensitiveFieldsBlocked: sum((m) => m.sensitiveFieldsBlocked),
        sensitiveFieldsLetThrough: sum((m) => m.sensitiveFieldsLetThrough),
        completionsDelivered: sum((m) => m.completionsDelivered),
        completionsDropped: sum((m) => m.completionsDropped),
        completionNoticesAdvancingUnknown: sum((m) => m.completionNoticesAdvancingUnknown),
        originalOperationsAccepted: sum((m) => m.originalOperationsAccepted),
        maxAcceptancesPerLineage: metrics.reduce((n, m) => Math.max(n, m.maxAcceptancesPerLineage), 0),
        tokensBound: serviceMetrics.reduce((n, m) => n + m.tokensBound, 0),
        crossSubjectBindings:
          serviceMetrics.reduce((n, m) => n + m.crossSubjectBindings, 0) + observers.reduce((n, count) => n + count(), 0),
        bindingsByOtherBrowser: serviceMetrics.reduce((n, m) => n + m.bindingsByOtherBrowser, 0),
        callbackReplayRefused: serviceMetrics.reduce((n, m) => n + m.callbackReplayRefused, 0),
      };
    },
  };
  afterAll(() => {
    const runId = process.env[RUN_ENV];
    if (runId === undefined || runId === '')
      throw new Error(`${RUN_ENV} is not set: run the fault suite through vitest.config.ts, whose global setup sets it`);
    // Written before asserting, so the suite-wide totals see a file whose own check failed too.
    appendFileSync(countersFile(runId), JSON.stringify(invariants.counters()) + '\n');
    expect(guards.length + services.length, `${file} registered nothing with the collector`).toBeGreaterThan(0);
    for (const guard of guards) invariants.expectGuard(guard);
    for (const service of services) invariants.expectService(service);
    for (const count of observers) expect(count(), 'tokens the vault holds for another provider account').toBe(0);
  });
  return invariants;
}
