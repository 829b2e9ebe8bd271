import { describe, expect, it } from 'vitest';
import { markdownOf, run } from './page-fixtures.js';

/** A line of about `n` characters starting with `head`. */
const line = (head: string, n = 60): string => `${head} ${'word '.repeat(30)}`.slice(0, n).trim();

describe('entries set with a hanging indent', () => {
  it('keeps each reference in one paragraph, its indented lines included', () => {
    // Arrange: two references, the lines after each first line indented by 1.5 em.
    const runs = [
      run(line('Marah Abdin, Sam Ade Jacobs, Ammar Ahmad Awan,'), 72, 100),
      run(line('Jyoti Aneja, Ahmed Awadallah, Hany Awadalla', 57), 87, 112),
      run('et al. 2024. Phi-3 technical report.', 87, 124),
      run(line('Abhimanyu Dubey, Abhinav Jauhri, Abhinav Pandey,'), 72, 136),
      run(line('Abhishek Kadian, Ahmad Al-Dahle, Aiesha Letman', 57), 87, 148),
      run('et al. 2024. The llama 3 herd of models.', 87, 160),
    ];
    // Act
    const paragraphs = markdownOf(runs).split('\n\n');
    // Assert
    expect(paragraphs).toHaveLength(2);
    expect(paragraphs[0]).toMatch(/^Marah Abdin.*Jyoti Aneja.*Phi-3 technical report\.$/);
    expect(paragraphs[1]).toMatch(/^Abhimanyu Dubey.*Abhishek Kadian.*herd of models\.$/);
  });

  it('still opens a paragraph at a first line set in', () => {
    // Arrange: two paragraphs whose first lines are indented.
    const runs = [
      run(line('Recent advancements in large language models', 57), 87, 100),
      run(line('have enabled more sophisticated techniques for'), 72, 112),
      run(line('reasoning and decision-making in many settings.'), 72, 124),
      run(line('Despite its strengths in general question', 57), 87, 136),
      run(line('answering, the framework sometimes falls short'), 72, 148),
      run('in delivering accurate results.', 72, 160),
    ];
    // Act
    const paragraphs = markdownOf(runs).split('\n\n');
    // Assert
    expect(paragraphs).toHaveLength(2);
    expect(paragraphs[1]).toMatch(/^Despite its strengths/);
  });
});
