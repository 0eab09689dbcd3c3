/**
 * The dates of a task's text, written as the Tasks plugin writes them (`📅 2026-12-01`: due
 * 📅📆🗓, scheduled ⏳⌛, start 🛫, done ✅, created ➕, cancelled ❌) or as Dataview inline
 * fields (`[due:: 2026-12-01]`, `(due:: …)`; keys due, scheduled, start, completion or done,
 * created, cancelled, in any case). A date is `YYYY-MM-DD` (a time after it is dropped); the
 * first of each kind counts. Both patterns are anchored on a literal and bounded: linear time.
 */

export const TASK_DATES = ['due', 'scheduled', 'start', 'completion', 'created', 'cancelled'] as const;
export type TaskDate = (typeof TASK_DATES)[number];
export type TaskDates = Partial<Record<TaskDate, string>>;

export interface TaskFields {
  /** The text without its date markers, runs of spaces squeezed, trimmed. */
  text: string;
  dates: TaskDates;
  /** True when a date is written the Tasks plugin's way (an emoji). */
  emoji: boolean;
}

const DATE = String.raw`(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))`;
const TIME = String.raw`(?:[T ][\d:.]{1,12})?`;
const EMOJI_DATE = new RegExp(String.raw`(📅|📆|🗓|⏳|⌛|🛫|✅|➕|❌)\uFE0F? *${DATE}`, 'gu');
const FIELD_KEYS = 'due|scheduled|start|completion|done|created|cancelled';
const FIELD_DATE = new RegExp(String.raw`\[(${FIELD_KEYS}):: *${DATE}${TIME} *\]|\((${FIELD_KEYS}):: *${DATE}${TIME} *\)`, 'giu');

const EMOJI: Record<string, TaskDate> = {
  '📅': 'due',
  '📆': 'due',
  '🗓': 'due',
  '⏳': 'scheduled',
  '⌛': 'scheduled',
  '🛫': 'start',
  '✅': 'completion',
  '➕': 'created',
  '❌': 'cancelled',
};

/** Dataview's key for a field, lower-cased; `done` is read as `completion`. */
function fieldKey(key: string): TaskDate {
  const k = key.toLowerCase();
  return k === 'done' ? 'completion' : (k as TaskDate);
}

/** A marker for the day a task was done, as the Tasks plugin appends it. */
export const doneMarker = (day: string) => `✅ ${day}`;
/**
 * Every done marker of a line, with the spaces before it. The look-behind lets only the first
 * space of a run start a match: without it a long run of spaces is read again from each of them.
 */
export const DONE_MARKERS = /(?<![ \t])[ \t]*✅\uFE0F? *\d{4}-\d{2}-\d{2}/gu;

export function taskFields(raw: string): TaskFields {
  const dates: TaskDates = {};
  let emoji = false;
  let text = raw;
  if (raw.includes('::')) {
    text = text.replace(FIELD_DATE, (_, k1: string | undefined, d1: string | undefined, k2: string, d2: string) => {
      dates[fieldKey(k1 ?? k2)] ??= d1 ?? d2;
      return ' ';
    });
  }
  text = text.replace(EMOJI_DATE, (_, mark: string, day: string) => {
    emoji = true;
    dates[EMOJI[mark]] ??= day;
    return ' ';
  });
  return { text: text === raw ? raw.trim() : text.replace(/[ \t]{2,}/g, ' ').trim(), dates, emoji };
}
