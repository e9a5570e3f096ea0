import { describe, expect, it } from 'vitest';
import { formDefaults, formFields, parseFieldInput } from '../../../src/adapters/sdk/form-fields.js';
import { auditForm } from '../../../src/form/index.js';
import { defaultPolicy } from '../../../src/policy/index.js';

const SCHEMA = {
  type: 'object',
  properties: {
    seats: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
    ratio: { type: 'number' },
    notify: { type: 'boolean', default: true },
    plan: { type: 'string', enum: ['1', '2', 'pro'], enumNames: ['One', 'Two', 'Professional'] },
    tags: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'a', title: 'Alpha' },
          { const: 'b', title: 'Beta' },
        ],
      },
      maxItems: 2,
      default: ['a'],
    },
    phone: { type: 'string', title: 'Phone number', default: 'not a number of any kind but a string' },
    size: { type: 'integer', default: 99, maximum: 10 },
  },
  required: ['seats'],
};

const fields = formFields(SCHEMA, auditForm({ message: 'Order', requestedSchema: SCHEMA }, defaultPolicy.base));
const field = (name: string) => fields.find((f) => f.name === name)!;

describe('formFields', () => {
  it('reads fields in order with options, titles, requiredness, audit class and only the defaults that fit', () => {
    expect(fields.map((f) => f.name)).toEqual(['seats', 'ratio', 'notify', 'plan', 'tags', 'phone', 'size']);
    expect(field('plan').options).toEqual([
      { value: '1', title: 'One' },
      { value: '2', title: 'Two' },
      { value: 'pro', title: 'Professional' },
    ]);
    expect(field('seats').required).toBe(true);
    expect(field('phone').class).toBe('personal');
    // A default outside its own limits is not pre-filled.
    expect(field('size').default).toBeNull();
    expect(formDefaults(fields)).toEqual({ seats: 2, notify: true, tags: ['a'], phone: 'not a number of any kind but a string' });
  });
});

describe('parseFieldInput', () => {
  it('reads numbers strictly and checks their limits', () => {
    expect(parseFieldInput(field('seats'), ' 3 ')).toEqual({ ok: true, value: 3 });
    expect(parseFieldInput(field('seats'), '3.5')).toEqual({ ok: false, problem: 'must be an integer' });
    expect(parseFieldInput(field('seats'), '6')).toEqual({ ok: false, problem: 'is above maximum 5' });
    expect(parseFieldInput(field('seats'), '3 seats')).toEqual({ ok: false, problem: 'must be a whole number' });
    expect(parseFieldInput(field('ratio'), '-.5e1')).toEqual({ ok: true, value: -5 });
    expect(parseFieldInput(field('ratio'), '0x10')).toMatchObject({ ok: false });
  });

  it('reads yes/no words for booleans', () => {
    expect(parseFieldInput(field('notify'), 'Yes')).toEqual({ ok: true, value: true });
    expect(parseFieldInput(field('notify'), '0')).toEqual({ ok: true, value: false });
    expect(parseFieldInput(field('notify'), 'maybe')).toMatchObject({ ok: false });
  });

  it('picks an option by exact value before its position, then by title', () => {
    // "2" is an option value: it is not read as "the second option".
    expect(parseFieldInput(field('plan'), '2')).toEqual({ ok: true, value: '2' });
    expect(parseFieldInput(field('plan'), '3')).toEqual({ ok: true, value: 'pro' });
    expect(parseFieldInput(field('plan'), 'professional')).toEqual({ ok: true, value: 'pro' });
    expect(parseFieldInput(field('plan'), 'enterprise')).toMatchObject({ ok: false });
  });

  it('reads a comma-separated multi-select, - for none, and checks maxItems and duplicates', () => {
    expect(parseFieldInput(field('tags'), 'Alpha, 2')).toEqual({ ok: true, value: ['a', 'b'] });
    expect(parseFieldInput(field('tags'), '-')).toEqual({ ok: true, value: [] });
    expect(parseFieldInput(field('tags'), 'a,a')).toEqual({ ok: false, problem: 'holds the same option twice' });
    expect(parseFieldInput(field('tags'), 'a,c')).toMatchObject({ ok: false });
  });
});
