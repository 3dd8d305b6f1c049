// JSON Schema → zod, written as an AI SDK user writes a tool's `inputSchema` (zod 4).
//
// The rules are the MCP TypeScript adapter's (conformance/adapters/mcp-typescript/adapter.mjs),
// with one choice made by the caller, because it is the one choice that decides a verdict: how an
// object is written. `objects: 'plain'` writes every object as `z.object` — the AI SDK docs' idiom
// (zod strips unknown keys and never refuses them; the JSON Schema the model is shown from it says
// `additionalProperties: false`); `objects: 'exact'` writes `additionalProperties: false` as
// `z.strictObject`, an open object as `z.looseObject` (unknown keys kept). A schema-valued
// `additionalProperties` is `.catchall(<zod>)` either way. `enum` of strings is `z.enum`, other
// enums and `const` `z.literal`, `prefixItems` `z.tuple`, a local `$ref` is inlined. Keywords zod
// cannot state faithfully (uniqueItems, oneOf, ...) throw `Skip` with the reason.

import { Skip } from '@harness-conformance/adapter';

// The caller's zod namespace (`import * as z from 'zod'`): schemas are built with the zod instance
// the harness validates with, so this module can serve any adapter folder with its own zod.
let z;

export const KEYWORDS = [
  'type', 'properties', 'required', 'additionalProperties', 'enum', 'const',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'items', 'minItems', 'maxItems',
  'anyOf', 'description', 'title', 'default', 'prefixItems', '$ref', '$defs',
];

// The root schema's `$defs` (and draft-07 `definitions`), for inlining local `$ref`s.
let defs = {};
let objects = 'plain';
const inlining = [];

function resolve(ref, where) {
  const m = /^#\/(\$defs|definitions)\/([^/~]+)$/.exec(ref);
  if (!m || !(m[2] in (defs[m[1]] ?? {}))) throw new Skip(`$ref ${JSON.stringify(ref)} at ${where} is not a local $defs entry`);
  if (inlining.includes(ref)) throw new Skip(`recursive $ref ${JSON.stringify(ref)} at ${where} has no inlined zod form`);
  return defs[m[1]][m[2]];
}

function toZod(schema, path) {
  const where = path || '/';
  if (schema && typeof schema === 'object' && '$ref' in schema) {
    if (Object.keys(schema).some((k) => !['$ref', 'description', 'title'].includes(k))) {
      throw new Skip(`$ref beside other keywords at ${where}`);
    }
    const target = resolve(schema.$ref, where);
    inlining.push(schema.$ref);
    try {
      return toZod(target, `${path}/$ref`);
    } finally {
      inlining.pop();
    }
  }
  if (schema === true || (schema && typeof schema === 'object' && Object.keys(schema).length === 0)) return z.any();
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new Skip(`schema ${JSON.stringify(schema)} at ${where} has no zod equivalent`);
  for (const key of Object.keys(schema)) {
    if (!KEYWORDS.includes(key)) throw new Skip(`keyword ${JSON.stringify(key)} at ${where} has no zod equivalent`);
  }
  let out = base(schema, path, where);
  if (schema.description !== undefined) out = out.describe(schema.description);
  return out;
}

function literals(values, where) {
  for (const v of values) {
    if (v !== null && typeof v === 'object') throw new Skip(`enum/const value ${JSON.stringify(v)} at ${where} cannot be a z.literal`);
  }
  return values;
}

function base(schema, path, where) {
  if ('const' in schema) return z.literal(literals([schema.const], where)[0]);
  if ('enum' in schema) {
    const values = literals(schema.enum, where);
    // z.enum is zod's enum type (its message lists the options); a list of literals for the rest
    return values.length > 0 && values.every((v) => typeof v === 'string') ? z.enum(values) : z.literal(values);
  }
  if ('anyOf' in schema) {
    const members = schema.anyOf.map((s, i) => toZod(s, `${path}/anyOf/${i}`));
    return members.length === 1 ? members[0] : z.union(members);
  }
  const type = schema.type;
  if (type === undefined) {
    const constrained = Object.keys(schema).filter((k) => !['description', 'title', 'default'].includes(k));
    if (constrained.length) throw new Skip(`keywords ${constrained.join(', ')} without type at ${where}`);
    return z.any();
  }
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null');
    if (nonNull.length === 1 && type.includes('null')) return base({ ...schema, type: nonNull[0] }, path, where).nullable();
    const constrained = Object.keys(schema).filter((k) => !['type', 'description', 'title', 'default'].includes(k));
    if (constrained.length) throw new Skip(`a list of types with constraints at ${where}`);
    return z.union(type.map((t) => base({ type: t }, path, where)));
  }
  const only = (allowed) => {
    const groups = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength',
      'pattern', 'items', 'minItems', 'maxItems', 'prefixItems', 'properties', 'required', 'additionalProperties'];
    for (const k of groups) if (k in schema && !allowed.includes(k)) throw new Skip(`${k} on type ${type} at ${where}`);
  };
  const numeric = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
  switch (type) {
    case 'string': {
      only(['minLength', 'maxLength', 'pattern']);
      let s = z.string();
      if ('minLength' in schema) s = s.min(schema.minLength);
      if ('maxLength' in schema) s = s.max(schema.maxLength);
      if ('pattern' in schema) s = s.regex(new RegExp(schema.pattern, 'u'));
      return s;
    }
    case 'integer':
    case 'number': {
      only(numeric);
      let n = type === 'integer' ? z.number().int() : z.number();
      if ('minimum' in schema) n = n.gte(schema.minimum);
      if ('maximum' in schema) n = n.lte(schema.maximum);
      if ('exclusiveMinimum' in schema) n = n.gt(schema.exclusiveMinimum);
      if ('exclusiveMaximum' in schema) n = n.lt(schema.exclusiveMaximum);
      if ('multipleOf' in schema) n = n.multipleOf(schema.multipleOf);
      return n;
    }
    case 'boolean': only([]); return z.boolean();
    case 'null': only([]); return z.null();
    case 'array': {
      if ('prefixItems' in schema) {
        only(['prefixItems', 'items']);
        const members = schema.prefixItems.map((s, i) => toZod(s, `${path}/prefixItems/${i}`));
        if (schema.items === false) return z.tuple(members);
        return z.tuple(members, schema.items === undefined ? z.any() : toZod(schema.items, `${path}/items`));
      }
      only(['items', 'minItems', 'maxItems']);
      if (Array.isArray(schema.items)) throw new Skip(`draft-07 tuple-form items at ${where}`);
      let a = z.array(schema.items === undefined ? z.any() : toZod(schema.items, `${path}/items`));
      if ('minItems' in schema) a = a.min(schema.minItems);
      if ('maxItems' in schema) a = a.max(schema.maxItems);
      return a;
    }
    case 'object': {
      only(['properties', 'required', 'additionalProperties']);
      return objectSchema(schema, path, where);
    }
    default:
      throw new Skip(`unknown type ${JSON.stringify(type)} at ${where}`);
  }
}

function objectSchema(schema, path, where) {
  const extra = schema.additionalProperties ?? true;
  if (schema.properties === undefined && extra !== false) {
    return z.record(z.string(), extra === true ? z.any() : toZod(extra, `${path}/additionalProperties`));
  }
  const required = schema.required ?? [];
  const props = schema.properties ?? {};
  for (const name of required) if (!(name in props)) throw new Skip(`required ${JSON.stringify(name)} without a property at ${where}`);
  const shape = {};
  for (const [key, sub] of Object.entries(props)) {
    let field = toZod(sub, `${path}/${key}`);
    if (!required.includes(key)) field = sub && typeof sub === 'object' && 'default' in sub ? field.default(sub.default) : field.optional();
    shape[key] = field;
  }
  if (objects === 'plain' && (extra === false || extra === true)) return z.object(shape);
  if (extra === false) return z.strictObject(shape);
  if (extra === true) return z.looseObject(shape);
  return z.object(shape).catchall(toZod(extra, `${path}/additionalProperties`));
}

/** The zod schema for a tool's input schema, built with `zod` (the caller's zod namespace); `mode`
 * is 'plain' (every object a z.object) or 'exact' (z.strictObject / z.looseObject). */
export function zodFor(zod, schema, mode) {
  z = zod;
  if (!schema || schema.type !== 'object') throw new Skip("the tool's input schema is not `type: object`");
  defs = { $defs: schema.$defs ?? {}, definitions: schema.definitions ?? {} };
  objects = mode;
  const { $defs: _d, definitions: _x, ...root } = schema;
  return objectSchema({ properties: {}, ...root }, '', '/');
}
