import { describe, expect, it } from 'vitest';
import { fontStyle } from '../../../../functions/engines/pdf/font-style.js';

const style = (name: string, flags = {}) => {
  const s = fontStyle(name, flags);
  return `${s.bold ? 'b' : ''}${s.italic ? 'i' : ''}${s.monospace ? 'm' : ''}${s.math ? 'x' : ''}`;
};

describe('fontStyle', () => {
  it('reads Computer Modern families from the name, whatever the descriptor flags say', () => {
    // Arrange: some TeX PDFs carry ForceBold or a wide /StemV on every embedded font.
    const forced = { bold: true, italic: false, monospace: false };
    // Act / Assert
    expect(style('TNYVOQ+CMR10', forced)).toBe('');
    expect(style('CMR10', forced)).toBe('');
    expect(style('ABCDEF+CMBX10')).toBe('b');
    expect(style('CMBX12', { bold: false })).toBe('b');
    expect(style('CMTI10')).toBe('i');
    expect(style('CMSL10')).toBe('i');
    expect(style('CMBXTI10')).toBe('bi');
    expect(style('CMTT10', forced)).toBe('m');
    expect(style('CMSLTT10')).toBe('im');
    expect(style('CMSSBX10')).toBe('b');
    expect(style('CMCSC10', forced)).toBe('');
    expect(style('CMMI10', { italic: true })).toBe('x');
    expect(style('CMSY10')).toBe('x');
    expect(style('SFRM1000', forced)).toBe('');
    expect(style('AAAAAD+SFBX1000')).toBe('b');
    expect(style('SFTI1000')).toBe('i');
    expect(style('ECTT1000')).toBe('m');
  });

  it('combines descriptor flags and style words for other fonts', () => {
    expect(style('ABCDEF+Times-BoldItalic')).toBe('bi');
    expect(style('ArialMT', { bold: true })).toBe('b');
    expect(style('ArialMT', { italic: true })).toBe('i');
    expect(style('CourierNewPSMT')).toBe('m');
    expect(style('LiberationSerif', { monospace: true })).toBe('m');
    expect(style('Helvetica-Oblique')).toBe('i');
    expect(style('SymbolMT')).toBe('x');
  });
});
