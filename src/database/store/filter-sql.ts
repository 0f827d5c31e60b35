/**
 * SQL conditions on an item's `value` (jsonb) for a store search `filter`, as LangGraph's PostgresStore builds
 * them (its QueryBuilder is not exported): `{field: value}` exact (objects by containment), `{field: {$eq, $ne,
 * $gt, $gte, $lt, $lte, $in, $nin, $exists}}`. `params` gets the operands; the conditions name them from
 * `$${params.length + 1}` on. `column`: the jsonb column's SQL.
 */
export function filterConditions(filter: Record<string, unknown> | undefined, params: unknown[], column = 'value'): string[] {
  const conditions: string[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  for (const [field, condition] of Object.entries(filter ?? {})) {
    if (condition && typeof condition === 'object' && !Array.isArray(condition)) {
      const ops = Object.entries(condition as Record<string, unknown>);
      if (!ops.some(([op]) => op.startsWith('$'))) {
        conditions.push(`${column} @> ${p(JSON.stringify({ [field]: condition }))}::jsonb`);
        continue;
      }
      for (const [op, operand] of ops) {
        const sql = operatorCondition(`${column} ->> ${p(field)}`, op, operand, p, column, field);
        if (sql) conditions.push(sql);
      }
    } else {
      conditions.push(`${column} ->> ${p(field)} = ${p(String(condition))}`);
    }
  }
  return conditions;
}

const COMPARISONS: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

function operatorCondition(
  text: string,
  op: string,
  operand: unknown,
  p: (v: unknown) => string,
  column: string,
  field: string,
): string | undefined {
  if (op === '$eq') return `${text} = ${p(String(operand))}`;
  if (op === '$ne') return `${text} != ${p(String(operand))}`;
  if (COMPARISONS[op]) return `(${text})::numeric ${COMPARISONS[op]} ${p(operand)}`;
  if ((op === '$in' || op === '$nin') && Array.isArray(operand) && operand.length > 0) {
    const list = p(operand.map(String));
    return op === '$in' ? `${text} = ANY(${list}::text[])` : `${text} != ALL(${list}::text[])`;
  }
  if (op === '$exists') return operand ? `${column} ? ${p(field)}` : `NOT (${column} ? ${p(field)})`;
  return undefined;
}
