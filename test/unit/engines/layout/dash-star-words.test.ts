import { describe, expect, it } from 'vitest';
import { markdownOf, run } from './page-fixtures.js';

describe('a dash or an asterisk opening a wrapped line', () => {
  it('keeps a line that starts with *ALLOBJ in its paragraph instead of opening a list item', () => {
    // Arrange
    const runs = [
      run(
        'Even if you are willing to live with these performance and management issues, a user with',
        72,
        100,
      ),
      run(
        '*ALLOBJ access still can directly access all of the data in the underlying DB2 table and',
        72,
        112,
      ),
      run('easily bypass the security controls that are built into an SQL view.', 72, 124),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toBe(
      'Even if you are willing to live with these performance and management issues, a user with ' +
        '\\*ALLOBJ access still can directly access all of the data in the underlying DB2 table and ' +
        'easily bypass the security controls that are built into an SQL view.',
    );
  });

  it('still reads a dash set apart from its text as a bullet', () => {
    // Arrange
    const runs = [
      run('The rules to enforce include the following ones:', 72, 100),
      run('-', 90, 112),
      run('Human Resources can see the unmasked TAX_ID.', 100, 112),
      run('-', 90, 124),
      run('Employees can see only their own TAX_ID.', 100, 124),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toContain('- Human Resources can see the unmasked TAX\\_ID.');
    expect(markdown).toContain('- Employees can see only their own TAX\\_ID.');
  });

  it('keeps a justified line opening with a parenthetical dash in its paragraph', () => {
    // Arrange: every line runs to the right edge; the dash falls at the start of the fourth.
    const runs = [
      run(
        'deeper potential well of more massive galaxies: they can retain more gas heated by the',
        72,
        100,
      ),
      run(
        'supernova feedback. Hydrodynamical simulations can directly probe the X-ray coupling',
        72,
        112,
      ),
      run(
        'efficiency as a function of the total mass of the galaxies. Based on the EAGLE run, they',
        72,
        124,
      ),
      run(
        'found that the coupling efficiency, in agreement with what was observed in the past years',
        72,
        136,
      ),
      run(
        '– increases with the total mass of galaxies. Upon investigating the evolution of the gas',
        72,
        148,
      ),
      run(
        'due to the energetic feedback processes, they concluded that the bulk of the energy is lost.',
        72,
        160,
      ),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).not.toMatch(/^- /m);
    expect(markdown.split('\n\n')).toHaveLength(1);
    expect(markdown).toContain('in the past years – increases with the total mass');
  });

  it('still reads short dash items after a full line without a colon as a list', () => {
    // Arrange
    const runs = [
      run(
        'The procedure that the operators follow on every shift consists of three separate steps',
        72,
        100,
      ),
      run('– the pallet labels are checked against the order', 72, 112),
      run('– the goods are counted and weighed on the scale', 72, 124),
      run('– the count is entered into the warehouse system', 72, 136),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toContain('- the pallet labels are checked against the order');
    expect(markdown).toContain('- the count is entered into the warehouse system');
  });

  it('reads dash items wrapped flush with their dash, after a full line, as a list', () => {
    // Arrange: each item runs over two full lines; the wrapped line starts under the dash.
    const runs = [
      run(
        'The operators follow a procedure on every shift that consists of the three separate steps',
        72,
        100,
      ),
      run(
        '– the pallet labels are checked against the order and each label that does not match it is',
        72,
        112,
      ),
      run(
        'set aside for the shift leader, who decides whether the pallet is sent back to the sender',
        72,
        124,
      ),
      run(
        '– the goods are counted and weighed on the scale beside the gate before they are stored',
        72,
        136,
      ),
      run(
        'in the racks of the warehouse, and their count is entered into the system that same day',
        72,
        148,
      ),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toContain('\n\n- the pallet labels are checked against the order');
    expect(markdown).toContain('\n\n- the goods are counted and weighed on the scale');
  });
});
