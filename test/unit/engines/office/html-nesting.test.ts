import { describe, expect, it } from 'vitest';
import { DocumentRejectedError } from '../../../../functions/core/domain/errors.js';
import { convertHtml, MAX_HTML_DEPTH } from '../../../../functions/engines/office/html.js';

const nested = (levels: number) =>
  new TextEncoder().encode(
    `<html><body>${'<div>'.repeat(levels)}deep text${'</div>'.repeat(levels)}</body></html>`,
  );

describe('convertHtml: element nesting', () => {
  it('refuses 100,000 nested elements with a 422 naming the cap, not a stack overflow', () => {
    // Act
    const convert = () => convertHtml(nested(100_000));
    // Assert
    expect(convert).toThrow(DocumentRejectedError);
    expect(convert).toThrow(`nested deeper than ${MAX_HTML_DEPTH} levels`);
  });

  it('refuses one level past the cap and converts the cap itself', () => {
    // Arrange: <html> and <body> are two of the levels.
    const atCap = nested(MAX_HTML_DEPTH - 2);
    const pastCap = nested(MAX_HTML_DEPTH - 1);
    // Act
    const converted = convertHtml(atCap);
    // Assert
    expect(converted.pages.map((p) => p.markdown).join('\n')).toContain('deep text');
    expect(() => convertHtml(pastCap)).toThrow(DocumentRejectedError);
  });

  it('does not count void elements and implied end tags as nesting', () => {
    // Arrange: thousands of unclosed <p>, <li> and void elements, as sloppy pages have.
    const html = `<html><body>${'<p>para<br><img src="x.png">'.repeat(2000)}<ul>${'<li>item'.repeat(2000)}</ul></body></html>`;
    // Act
    const converted = convertHtml(new TextEncoder().encode(html));
    // Assert
    expect(converted.pages.map((p) => p.markdown).join('\n')).toContain('item');
  });
});
