/**
 * Colours for the UI's tones. Colour only repeats what glyphs and words already say, so without
 * colour (`NO_COLOR`, a terminal that has none) the same frame reads the same.
 */
import { createContext, useContext } from 'react';
import type { Tone } from './state/detail-lines.js';

export type Color = 'green' | 'yellow' | 'red' | 'magenta' | 'cyan' | 'blue' | 'gray' | 'white' | undefined;

const TONE_COLORS: Readonly<Record<Tone, Color>> = {
  heading: 'white',
  normal: undefined,
  dim: 'gray',
  allow: 'green',
  continue: 'gray',
  skip: 'yellow',
  block: 'red',
  warn: 'yellow',
  halt: 'red',
  stuck: 'magenta',
  recover: 'cyan',
  unexpected: 'red',
  expected: 'blue',
  error: 'red',
};

export interface Theme {
  /** False without colour: components pass no colour at all. */
  color: boolean;
}

export const ThemeContext = createContext<Theme>({ color: true });

/** The colour for a tone, or undefined when the terminal shows no colour. */
export function useToneColor(): (tone: Tone) => Color {
  const { color } = useContext(ThemeContext);
  return (tone) => (color ? TONE_COLORS[tone] : undefined);
}
