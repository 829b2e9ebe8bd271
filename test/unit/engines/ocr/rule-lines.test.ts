import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Segment } from '../../../../functions/engines/layout/types.js';
import { detectRuleLines } from '../../../../functions/engines/ocr/rule-lines.js';

const WIDTH = 1200;
const HEIGHT = 1600;

/** A white page with the given SVG elements drawn on it, as PNG. */
async function draw(body: string, width = WIDTH, height = HEIGHT): Promise<Uint8Array> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="white"/>${body}</svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

const horizontal = (s: Segment): boolean => s.y1 === s.y2;
const vertical = (s: Segment): boolean => s.x1 === s.x2;

describe('detectRuleLines', () => {
  // A 3×3 grid: rows at y = 300, 400, 500, 600, columns at x = 200, 350, 500, 650.
  const grid = (): string => {
    const lines: string[] = [];
    for (const y of [300, 400, 500, 600]) {
      lines.push(`<rect x="200" y="${y - 1}" width="452" height="2" fill="black"/>`);
    }
    for (const x of [200, 350, 500, 650]) {
      lines.push(`<rect x="${x - 1}" y="299" width="2" height="302" fill="black"/>`);
    }
    return lines.join('');
  };

  it('finds the four horizontal and four vertical lines of a ruled grid', async () => {
    const segments = await detectRuleLines(await draw(grid()), WIDTH, HEIGHT);
    const rows = segments.filter(horizontal).sort((a, b) => a.y1 - b.y1);
    const columns = segments.filter(vertical).sort((a, b) => a.x1 - b.x1);
    expect(rows).toHaveLength(4);
    expect(columns).toHaveLength(4);
    expect(segments).toHaveLength(8);
    rows.forEach((s, i) => {
      expect(s.y1).toBeCloseTo(300 + 100 * i, 0);
      expect(s.x1).toBeCloseTo(199, -1);
      expect(s.x2).toBeCloseTo(651, -1);
    });
    columns.forEach((s, i) => {
      expect(s.x1).toBeCloseTo(200 + 150 * i, 0);
      expect(s.y1).toBeCloseTo(299, -1);
      expect(s.y2).toBeCloseTo(601, -1);
    });
  });

  it('returns segments at the requested scale', async () => {
    const segments = await detectRuleLines(await draw(grid()), WIDTH / 2, HEIGHT / 2);
    const rows = segments.filter(horizontal).sort((a, b) => a.y1 - b.y1);
    expect(rows).toHaveLength(4);
    expect(rows[0]!.y1).toBeCloseTo(150, 0);
    expect(rows[0]!.x2).toBeCloseTo(326, -1);
  });

  it('ignores filled blocks such as photos', async () => {
    const photo =
      '<rect x="100" y="200" width="600" height="400" fill="#202020"/>' +
      '<rect x="150" y="700" width="500" height="300" fill="#505050"/>' +
      '<circle cx="300" cy="850" r="80" fill="#b0b0b0"/>';
    expect(await detectRuleLines(await draw(photo), WIDTH, HEIGHT)).toEqual([]);
  });

  it('ignores the edges of a dark banner with light text', async () => {
    const banner =
      '<rect x="100" y="200" width="500" height="30" fill="black"/>' +
      '<text x="110" y="225" font-family="sans-serif" font-size="26" fill="white">' +
      'SHIPPING INFORMATION</text>';
    const segments = await detectRuleLines(await draw(banner), WIDTH, HEIGHT);
    expect(segments.filter(horizontal)).toEqual([]);
  });

  it('finds no long lines in plain text', async () => {
    const text = Array.from(
      { length: 20 },
      (_, i) =>
        `<text x="100" y="${200 + 40 * i}" font-family="sans-serif" font-size="28" fill="black">` +
        'The quick brown fox jumps over the lazy dog, THE LAZY DOG, 1234567890.</text>',
    ).join('');
    expect(await detectRuleLines(await draw(text), WIDTH, HEIGHT)).toEqual([]);
  });

  it('skips frames around the whole page', async () => {
    const frame = '<rect x="20" y="20" width="1160" height="1560" fill="none" stroke="black"/>';
    expect(await detectRuleLines(await draw(frame), WIDTH, HEIGHT)).toEqual([]);
  });

  it('keeps the row rules of a table spanning a framed page, and the frame sides along them', async () => {
    // Arrange: a page frame; a table across it with rows at y = 700, 760, 820 and five inner
    // column rules; a page-wide section line at y = 400 that only the frame crosses
    const frame =
      '<rect x="20" y="20" width="1160" height="1560" fill="none" stroke="black" stroke-width="2"/>';
    const rows = [400, 700, 760, 820]
      .map((y) => `<rect x="20" y="${y - 1}" width="1160" height="2" fill="black"/>`)
      .join('');
    const columns = [200, 400, 600, 800, 1000]
      .map((x) => `<rect x="${x - 1}" y="699" width="2" height="122" fill="black"/>`)
      .join('');
    // Act
    const segments = await detectRuleLines(await draw(frame + rows + columns), WIDTH, HEIGHT);
    // Assert
    const rowsFound = segments.filter(horizontal).map((s) => Math.round(s.y1));
    expect(rowsFound.sort((a, b) => a - b)).toEqual([700, 760, 820]);
    const sides = segments.filter((s) => vertical(s) && (s.x1 < 30 || s.x1 > 1170));
    expect(sides).toHaveLength(2);
    for (const side of sides) {
      expect(Math.min(side.y1, side.y2)).toBeGreaterThan(690);
      expect(Math.max(side.y1, side.y2)).toBeLessThan(830);
    }
    expect(segments.filter(vertical)).toHaveLength(7);
  });

  it('finds short column rules on a framed page whose banners touch the frame', async () => {
    // Arrange: a page frame, a dark banner joined to it, and a 4-column table below
    const frame =
      '<rect x="20" y="20" width="1160" height="1560" fill="none" stroke="black" stroke-width="2"/>';
    const banner = '<rect x="20" y="100" width="1160" height="40" fill="black"/>';
    const rows = [700, 760, 820]
      .map((y) => `<rect x="200" y="${y - 1}" width="602" height="2" fill="black"/>`)
      .join('');
    const columns = [200, 400, 600, 800]
      .map((x) => `<rect x="${x - 1}" y="699" width="2" height="122" fill="black"/>`)
      .join('');
    // Act
    const segments = await detectRuleLines(
      await draw(frame + banner + rows + columns),
      WIDTH,
      HEIGHT,
    );
    // Assert
    const columnsFound = segments.filter((s) => vertical(s) && s.x1 > 100 && s.x1 < 1100);
    expect(columnsFound.map((s) => Math.round(s.x1))).toEqual([200, 400, 600, 800]);
  });

  it('finds a column rule that meets a dark banner, not the banner', async () => {
    // Arrange: a grey banner 40 px tall over a row of cells; the rules between the cells start
    // at the banner's lower edge and run 90 px down (the rows' horizontal rules are too short
    // to count).
    const body =
      `<rect x="200" y="300" width="500" height="40" fill="#404040"/>` +
      [300, 450, 600]
        .map((x) => `<rect x="${x - 1}" y="340" width="2" height="90" fill="black"/>`)
        .join('');
    // Act
    const segments = await detectRuleLines(await draw(body), WIDTH, HEIGHT);
    // Assert
    const columns = segments.filter(vertical).sort((a, b) => a.x1 - b.x1);
    expect(columns.map((s) => Math.round(s.x1))).toEqual([300, 450, 600]);
    for (const s of columns) expect(s.y2).toBeCloseTo(430, -1);
  });
});
