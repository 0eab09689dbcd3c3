/** The pages a first start puts in the owner's vault: small, linked, tagged, and useful as a tour. */
export const DEMO_PAGES: Record<string, string> = {
  'Welcome.md': `---
title: Welcome to Quire
tags: [quire, start]
---
# Welcome to Quire

This vault is a folder of markdown files that is also a git repository. Edit pages here, in
[[Obsidian]] or any editor, or through the API: every change becomes a commit.

- Start with [[Projects/Garden Plan]] to see links between pages.
- Read [[Reading List]] for tags in action. #reading
- Notes captured by assistants land in \`capture/\`, like [[capture/2026-01-05-idea-for-the-shed|this idea]].
- Assistants should read [[GUIDE]] first.
`,
  'GUIDE.md': `---
title: Guide for assistants
tags: [quire]
---
# Guide for assistants

- Search before you write; read a page before you change it and send its \`hash\` as \`base_hash\`.
- Put quick notes in \`capture/\` with the capture tool; keep page titles short.
- Projects live under \`Projects/\`; one page per project, linked from [[Welcome]].
`,
  'Obsidian.md': `---
title: Obsidian
tags: [tools]
---
# Obsidian

Open this vault's folder in Obsidian: wiki links like [[Welcome]] resolve the same way here.
`,
  'Reading List.md': `---
title: Reading List
tags: [reading]
---
# Reading List

- *A Pattern Language* — how rooms and gardens fit people. Related: [[Projects/Garden Plan]]
- *How Buildings Learn* — buildings change after they are built. #architecture
`,
  'Projects/Garden Plan.md': `---
title: Garden Plan
tags: [project, garden]
---
# Garden Plan

## Goals
Raised beds along the south fence, a compost corner, and a path to the shed.

## Next steps
- Measure the south fence (about 8 m).
- Order cedar boards for three beds.
- See the shed idea in [[capture/2026-01-05-idea-for-the-shed]].
`,
  'capture/2026-01-05-idea-for-the-shed.md': `---
title: Idea for the shed
source: voice memo
captured_at: '2026-01-05T08:30:00.000Z'
---
Put a rain barrel on the shed's gutter and use it for the raised beds. #garden
`,
};
