import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLOW_STATES, FLOW_TRIGGERS, createFlow, transition, type Flow, type FlowState, type FlowTrigger } from '../../src/flow/states.js';
import { GuardError } from '../../src/protocol/errors.js';
import { DESIGNED_TRIGGERS } from './support.js';

interface Model {
  state: FlowState;
  time: number;
}
interface Real {
  flow: Flow;
}

const legalMoves = (state: FlowState): [FlowState, FlowTrigger][] =>
  Object.entries(DESIGNED_TRIGGERS[state]).flatMap(([to, triggers]) =>
    (triggers ?? []).map((t): [FlowState, FlowTrigger] => [to as FlowState, t]),
  );

/** Any move at all: legal or not, the implementation must agree with the model. */
class AnyMove implements fc.Command<Model, Real> {
  constructor(
    readonly to: FlowState,
    readonly trigger: FlowTrigger,
  ) {}
  check(): boolean {
    return true;
  }
  run(model: Model, real: Real): void {
    const legal = DESIGNED_TRIGGERS[model.state][this.to]?.includes(this.trigger) === true;
    const at = ++model.time;
    if (legal) {
      real.flow = transition(real.flow, this.to, this.trigger, at);
      model.state = this.to;
      expect(real.flow).toMatchObject({ state: this.to, trigger: this.trigger, updatedAt: at });
    } else {
      const before = real.flow;
      let code: string | null = null;
      try {
        transition(real.flow, this.to, this.trigger, at);
      } catch (error) {
        code = GuardError.is(error) ? error.code : 'not a GuardError';
      }
      expect(code).toBe('E_ILLEGAL_TRANSITION');
      expect(real.flow).toBe(before);
    }
    expect(real.flow.state).toBe(model.state);
  }
  toString(): string {
    return `any(${this.to}, ${this.trigger})`;
  }
}

/** An edge the model has, taken on any trigger: finds triggers an edge must refuse. */
class NearMove extends AnyMove {
  constructor(
    readonly pick: number,
    trigger: FlowTrigger,
  ) {
    super('CREATED', trigger);
  }
  override run(model: Model, real: Real): void {
    const targets = Object.keys(DESIGNED_TRIGGERS[model.state]) as FlowState[];
    if (targets.length === 0) return;
    new AnyMove(targets[this.pick % targets.length]!, this.trigger).run(model, real);
  }
  override toString(): string {
    return `near(${this.pick}, ${this.trigger})`;
  }
}

/** Tries every (state, trigger) from where the run is, without moving: each must agree with the model. */
class ProbeAll implements fc.Command<Model, Real> {
  constructor(readonly probed: Set<FlowState>) {}
  check(): boolean {
    return true;
  }
  run(model: Model, real: Real): void {
    this.probed.add(model.state);
    const disagreements: string[] = [];
    for (const to of FLOW_STATES) {
      for (const trigger of FLOW_TRIGGERS) {
        const legal = DESIGNED_TRIGGERS[model.state][to]?.includes(trigger) === true;
        let outcome: string;
        try {
          outcome = transition(real.flow, to, trigger, model.time).state;
        } catch (error) {
          outcome = GuardError.is(error) ? error.code : 'not a GuardError';
        }
        if (outcome !== (legal ? to : 'E_ILLEGAL_TRANSITION')) disagreements.push(`${model.state} → ${to} on ${trigger}: ${outcome}`);
      }
    }
    expect(disagreements).toEqual([]);
    expect(real.flow.state).toBe(model.state);
  }
  toString(): string {
    return 'probeAll';
  }
}

/**
 * A move the model allows, picked by index. With `live`, a move into a non-terminal state is
 * preferred, so runs get deep into the lifecycle instead of ending at the first decline.
 */
class LegalMove implements fc.Command<Model, Real> {
  constructor(
    readonly pick: number,
    readonly live: boolean,
  ) {}
  check(model: Readonly<Model>): boolean {
    return legalMoves(model.state).length > 0;
  }
  run(model: Model, real: Real): void {
    const all = legalMoves(model.state);
    const live = all.filter(([to]) => Object.keys(DESIGNED_TRIGGERS[to]).length > 0);
    const moves = this.live && live.length > 0 ? live : all;
    const [to, trigger] = moves[this.pick % moves.length]!;
    const at = ++model.time;
    real.flow = transition(real.flow, to, trigger, at);
    model.state = to;
    expect(real.flow).toEqual({ id: 'nav_model', state: to, trigger, createdAt: 0, updatedAt: at });
  }
  toString(): string {
    return `legal(${this.pick}${this.live ? ', live' : ''})`;
  }
}

describe('the flow state machine against its model', () => {
  it(
    'agrees with the model on every move of random runs, probing every state',
    () => {
      const probed = new Set<FlowState>();
      const commands = fc.commands(
        [
          fc.tuple(fc.constantFrom(...FLOW_STATES), fc.constantFrom(...FLOW_TRIGGERS)).map(([to, trigger]) => new AnyMove(to, trigger)),
          fc.tuple(fc.nat({ max: 11 }), fc.constantFrom(...FLOW_TRIGGERS)).map(([pick, trigger]) => new NearMove(pick, trigger)),
          fc.tuple(fc.nat({ max: 11 }), fc.boolean()).map(([pick, live]) => new LegalMove(pick, live)),
          fc.nat({ max: 11 }).map((pick) => new LegalMove(pick, true)),
          fc.nat({ max: 11 }).map((pick) => new LegalMove(pick, true)),
          fc.constant(new ProbeAll(probed)),
        ],
        { maxCommands: 60, size: 'max' },
      );
      fc.assert(
        fc.property(commands, (cmds) => {
          fc.modelRun(() => ({ model: { state: 'CREATED' as FlowState, time: 0 }, real: { flow: createFlow('nav_model', 0) } }), cmds);
        }),
        { numRuns: Number(process.env.FC_RUNS) || 150, seed: 20251125 },
      );
      // Agreement proves little unless the runs reached every state and probed it there.
      expect([...probed].sort()).toEqual([...FLOW_STATES].sort());
    },
    30_000 + (Number(process.env.FC_RUNS) || 150) * 10,
  );
});
