/**
 * Fixture for the PGlite tests of the compiler: two class tables of the storage shape, the
 * relation join table and ~20 rows of deliberately mixed data (typed fields, an untyped field
 * holding every JSON type, nested objects, arrays, nulls, missing fields, GeoPoints, ACLs).
 * Not a test file itself; imported by compile-where.pg.test.ts.
 */
import { PGlite } from '@electric-sql/pglite';
import type { ClassSchema } from '../../model/class-schema.ts';

/** Schema of the Item class (misc is deliberately absent: an untyped field). */
export const ITEM: ClassSchema = {
  name: 'Item',
  fields: {
    name: { type: 'String' },
    score: { type: 'Number' },
    flag: { type: 'Boolean' },
    when: { type: 'Date' },
    tags: { type: 'Array' },
    meta: { type: 'Object' },
    loc: { type: 'GeoPoint' },
    post: { type: 'Pointer', className: 'Post' },
    likes: { type: 'Relation', className: 'Post' },
  },
};

/** Schema of the Post class. */
export const POST: ClassSchema = { name: 'Post', fields: { title: { type: 'String' }, rank: { type: 'Number' } } };

/** Wire Date. */
export const D = (iso: string) => ({ __type: 'Date', iso });
/** Wire Pointer to Post. */
export const P = (objectId: string) => ({ __type: 'Pointer', className: 'Post', objectId });
/** Wire GeoPoint. */
export const G = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude });

const ITEMS: ReadonlyArray<[string, Record<string, unknown>, string[]?]> = [
  ['i01', { name: 'apple', score: 10, flag: true, when: D('2020-01-01T00:00:00.000Z'), tags: ['a', 'b'], meta: { city: 'Paris', n: 1 }, loc: G(48.8566, 2.3522), post: P('p1'), misc: 5, likes: { __type: 'Relation', className: 'Post' } }],
  ['i02', { name: 'Banana', score: 20, flag: false, when: D('2020-06-01T00:00:00.000Z'), tags: ['b', 'c'], meta: { city: 'London', n: 2 }, loc: G(51.5074, -0.1278), post: P('p2'), misc: 'text' }],
  ['i03', { name: 'cherry', score: 5.5, tags: [], meta: { city: 'Paris' }, loc: G(40.7128, -74.006), post: P('p1'), misc: true }],
  ['i04', { name: 'B', score: -3, tags: ['x', 1, { k: 1 }], misc: null }],
  ['i05', { name: 'a', score: 0, misc: [1, 'two', 3] }],
  ['i06', { name: 'é', misc: { k: 1 } }],
  ['i07', { name: 'Apple pie\nwith cream' }],
  ['i08', { name: 'a.b*c' }],
  ['i09', { name: 'startsWith test', tags: ['a'] }],
  ['i10', { score: 100 }],
  ['i11', { name: 'zeta', score: 7, when: D('2019-12-31T23:59:59.999Z'), misc: D('2021-01-01T00:00:00.000Z') }],
  ['i12', { name: 'Zebra', flag: true, loc: G(35.6762, 139.6503), misc: 7.5 }],
  ['i13', { name: 'x', tags: [P('p2')], misc: '8' }],
  ['i14', { name: 'y', meta: { city: 'Berlin', tags: ['q', 'r'], 'odd-key': 1 } }],
  ['i15', { name: 'with \\E inside' }],
  ['i16', { name: 'ünïcode' }],
  ['i17', { name: 'A', score: 1000 }],
  ['i18', { name: 'tab\there' }],
  ['i19', { name: null, score: 15 }],
  ['i20', { name: 'last', loc: G(-33.8688, 151.2093), misc: { k: 2 } }],
];

const POSTS: ReadonlyArray<[string, Record<string, unknown>, string[]]> = [
  ['p1', { title: 'apple', rank: 1 }, ['*']],
  ['p2', { title: 'Banana', rank: 2 }, ['u1']],
  ['p3', { title: 'hello', rank: 3 }, ['*']],
];

const RELATIONS: ReadonlyArray<[string, string, string, string, string]> = [
  ['Item', 'i01', 'likes', 'Post', 'p1'],
  ['Item', 'i01', 'likes', 'Post', 'p3'],
  ['Item', 'i02', 'likes', 'Post', 'p2'],
];

/** All Item objectIds, in order. */
export const ALL_ITEMS: readonly string[] = ITEMS.map(([id]) => id);

function tableDdl(name: string): string {
  return `CREATE TABLE "${name}" ("objectId" text PRIMARY KEY, "createdAt" timestamptz NOT NULL, "updatedAt" timestamptz NOT NULL, acl jsonb, rperm text[] NOT NULL, wperm text[] NOT NULL, data jsonb NOT NULL DEFAULT '{}')`;
}

/** Opens an in-memory PGlite with the fixture loaded. Item n is created on 2020-01-n. */
export async function openFixture(): Promise<PGlite> {
  const db = await PGlite.create('memory://');
  await db.exec(`${tableDdl('Item')}; ${tableDdl('Post')};
    CREATE TABLE _larder_relations (owner_class text NOT NULL, owner_id text NOT NULL, key text NOT NULL, target_class text NOT NULL, target_id text NOT NULL, PRIMARY KEY (owner_class, owner_id, key, target_class, target_id));`);
  const insert = async (table: string, id: string, data: Record<string, unknown>, rperm: string[], created: string) => {
    await db.query(`INSERT INTO "${table}" VALUES ($1, $2, $2, NULL, $3, $3, $4::text::jsonb)`, [id, created, rperm, JSON.stringify(data)]);
  };
  for (const [i, [id, data]] of ITEMS.entries()) {
    await insert('Item', id, data, ['*'], `2020-01-${String(i + 1).padStart(2, '0')}T00:00:00.000Z`);
  }
  for (const [id, data, rperm] of POSTS) await insert('Post', id, data, rperm, '2020-02-01T00:00:00.000Z');
  for (const r of RELATIONS) await db.query('INSERT INTO _larder_relations VALUES ($1, $2, $3, $4, $5)', [...r]);
  return db;
}
