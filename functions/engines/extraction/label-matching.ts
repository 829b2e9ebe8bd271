import { distance } from 'fastest-levenshtein';
import type { Json } from '../../core/domain/extraction/schema-shape.js';

/**
 * Label matching: labels and property names as normalised tokens (identifiers split, synonyms
 * mapped to one word, plurals folded), and how well the names a property goes by match a label or
 * a heading (token overlap, prefixes and edit distance against OCR slips).
 */

const SINGLE_SYNONYMS: Readonly<Record<string, string>> = {
  no: 'number',
  nr: 'number',
  num: 'number',
  nbr: 'number',
  id: 'number',
  identifier: 'number',
  tel: 'phone',
  telephone: 'phone',
  mobile: 'phone',
  cell: 'phone',
  qty: 'quantity',
  amt: 'amount',
  desc: 'description',
  descr: 'description',
  descrip: 'description',
  ref: 'reference',
  cust: 'customer',
  client: 'customer',
  addr: 'address',
  inv: 'invoice',
  wt: 'weight',
  acct: 'account',
  dt: 'date',
  supplier: 'vendor',
  seller: 'vendor',
  sender: 'shipper',
  consignor: 'shipper',
  recipient: 'consignee',
  receiver: 'consignee',
  zip: 'postcode',
  postal: 'postcode',
  vat: 'tax',
  gst: 'tax',
  sig: 'signature',
  business: 'company',
  organization: 'company',
  organisation: 'company',
  firm: 'company',
  mail: 'email',
};

const MULTI_SYNONYMS: readonly [RegExp, string][] = [
  // A postal box, not a purchase order ("P.O. Box", "PO Box").
  [/\bp ?o box\b/g, 'pobox'],
  [/\bbill of lading\b/g, 'bol'],
  [/\bb l\b/g, 'bol'],
  [/\bpurchase order\b/g, 'po'],
  [/\b(?:amount|balance|total) due\b/g, 'total'],
  [/\b(?:grand total|total amount|amount payable)\b/g, 'total'],
  [/\bsub total\b/g, 'subtotal'],
  [/\be email\b/g, 'email'],
  [/\bphone number\b/g, 'phone'],
  [/\bship(?:ped)? from\b/g, 'shipper'],
  [/\bship(?:ped)? to\b/g, 'consignee'],
  [/\bdeliver(?:ed)? to\b/g, 'consignee'],
  [/\bpick up\b/g, 'pickup'],
  [/\bpostcode code\b/g, 'postcode'],
  [/\bdate of birth\b/g, 'birthdate'],
  [/\ba c\b/g, 'account'],
];

const STOP_WORDS = new Set(
  'a an the of and or for in on at by is are please your our this with'.split(' '),
);

const stem = (token: string) =>
  token.length > 4 && token.endsWith('ies')
    ? `${token.slice(0, -3)}y`
    : token.length > 3 && token.endsWith('s') && !/(?:ss|us|is)$/.test(token)
      ? token.slice(0, -1)
      : token;

/**
 * Normalised tokens of a label or property name: identifiers split (camelCase, snake_case,
 * kebab-case), parentheses dropped, `#` read as "number", synonyms mapped to one word
 * ("No." / "#" / "ID" → number, "Tel" → phone, "Bill of Lading" → bol...), plurals folded.
 * Exported for tests.
 */
export function labelTokens(text: string): string[] {
  const words = text
    // Innermost parentheses: `[^)]` alone rescans to the end from every "(" of "((((…".
    .replace(/\([^()]*\)/g, ' ')
    .replace(/\d+(?:[.,]\d+)?\s*%/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .replace(/e-mail/g, 'email')
    .replace(/#/g, ' number ')
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((word) => SINGLE_SYNONYMS[word] ?? word);
  let joined = words.join(' ');
  for (const [pattern, replacement] of MULTI_SYNONYMS)
    joined = joined.replace(pattern, replacement);
  const tokens = joined.split(' ').filter(Boolean).map(stem);
  const meaningful = tokens.filter((token) => !STOP_WORDS.has(token));
  return meaningful.length > 0 ? meaningful : tokens;
}

function tokenSimilarity(a: string, b: string, partial: boolean): number {
  if (a === b) return 1;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= 4 && long.startsWith(short)) return 0.85;
  // The edit distance is at least the difference in length: skip it when that alone rules the
  // pair out (most pairs of a long label list and a large schema).
  if (short.length >= 4 && short.length >= 0.75 * long.length) {
    const similarity = 1 - distance(a, b) / long.length;
    if (similarity >= 0.75) return similarity;
  }
  if (partial && short.length >= 3 && long.includes(short))
    return 0.5 + (0.5 * short.length) / long.length;
  return 0;
}

/**
 * How well `label` tokens match `phrase` tokens, in [0, 1]: the Dice overlap of the tokens (fuzzy
 * per token), or the edit similarity of the joined words when that is higher (OCR slips). With
 * `partial`, a token found inside another counts (truncated table headers).
 */
export function matchScore(
  phrase: readonly string[],
  label: readonly string[],
  partial = false,
): number {
  if (phrase.length === 0 || label.length === 0) return 0;
  if (phrase.join(' ') === label.join(' ')) return 1;
  const used = new Set<number>();
  let sum = 0;
  let strong = 0;
  for (const p of phrase) {
    let best = 0;
    let bestIndex = -1;
    label.forEach((l, i) => {
      if (used.has(i)) return;
      const similarity = tokenSimilarity(p, l, partial);
      if (similarity > best) {
        best = similarity;
        bestIndex = i;
      }
    });
    if (bestIndex >= 0) {
      used.add(bestIndex);
      sum += best;
      if (best === 1) strong++;
    }
  }
  const dice = (2 * sum) / (phrase.length + label.length);
  // "QAC Auditor" for auditor: every word of a specific name, and one qualifier more.
  const qualified =
    strong === phrase.length &&
    label.length === phrase.length + 1 &&
    !phrase.every((t) => GENERIC_WORDS.has(t))
      ? 0.75
      : 0;
  const a = phrase.join('');
  const b = label.join('');
  const [shorter, longer] = a.length <= b.length ? [a.length, b.length] : [b.length, a.length];
  const whole = shorter >= 4 && shorter >= 0.8 * longer ? 1 - distance(a, b) / longer : 0;
  return Math.max(dice, qualified, whole >= 0.8 ? whole * 0.95 : 0);
}

/** Heading match: like {@link matchScore}, but a heading containing every word of the phrase counts. */
function headingScore(phrase: readonly string[], heading: readonly string[]): number {
  const direct = matchScore(phrase, heading);
  if (phrase.length === 0 || heading.length === 0) return direct;
  const covered = phrase.filter((p) => heading.some((h) => tokenSimilarity(p, h, false) >= 0.85));
  const coverage = covered.length / phrase.length;
  return Math.max(direct, coverage === 1 && (phrase.length >= 2 || heading.length <= 3) ? 0.8 : 0);
}

/** One name of a property, as tokens, and how much a match with it counts. */
export interface Phrase {
  tokens: string[];
  weight: number;
}

/** The names a property goes by: its key, its `title`, and a short `description`. */
export function phrasesOf(name: string, node: Json, prefix: readonly string[]): Phrase[] {
  const phrases: Phrase[] = [{ tokens: labelTokens(name), weight: 1 }];
  if (typeof node.title === 'string') phrases.push({ tokens: labelTokens(node.title), weight: 1 });
  if (typeof node.description === 'string') {
    const tokens = labelTokens(node.description);
    if (tokens.length <= 6) phrases.push({ tokens, weight: 0.9 });
  }
  if (prefix.length === 0) return phrases;
  const prefixed = phrases.map((phrase) => ({
    tokens: [...prefix, ...phrase.tokens.filter((t) => !prefix.includes(t))],
    weight: phrase.weight,
  }));
  // Outside its own section, a nested field keeps its plain names only when they are specific.
  const specific = phrases
    .filter((phrase) => !phrase.tokens.every((t) => GENERIC_WORDS.has(t)))
    .map((phrase) => ({ tokens: phrase.tokens, weight: phrase.weight * 0.9 }));
  return [...prefixed, ...specific];
}

/** Field words too common to be matched without the name of the object they belong to. */
const GENERIC_WORDS = new Set(
  'name address phone email fax date number type city state country postcode street company contact title time code status'.split(
    ' ',
  ),
);

/** The best weighted {@link matchScore} of the phrases against a label. */
export const scoreLabel = (phrases: readonly Phrase[], label: readonly string[], partial = false) =>
  Math.max(0, ...phrases.map((p) => p.weight * matchScore(p.tokens, label, partial)));

/** The best weighted heading score of the phrases against a heading or caption. */
export const scoreHeading = (phrases: readonly Phrase[], heading: readonly string[]) =>
  Math.max(0, ...phrases.map((p) => p.weight * headingScore(p.tokens, heading)));

/** The score from which a label, heading or caption counts as naming a property. */
export const MATCH_THRESHOLD = 0.7;
