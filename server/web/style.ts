/**
 * The one stylesheet of every browser page (account area, sign-in, OAuth consent). Inline
 * and allowed by its hash in the CSP, so no extra request and no `unsafe-inline`. Colours
 * keep at least 4.5:1 contrast on their backgrounds; focus is always visible.
 */
export const STYLESHEET = `
:root{--ink:#1b1f24;--muted:#57606a;--line:#d8dee4;--bg:#f6f7f9;--card:#fff;--accent:#1f5fbf;--accent-ink:#fff;--danger:#b3261e;--ok:#1a7f37;--warn:#8a5a00}
*{box-sizing:border-box}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--accent)}a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid #f0b429;outline-offset:2px}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.4rem .8rem;z-index:2}
header.top{background:var(--ink);color:#fff}
.top .bar{max-width:64rem;margin:0 auto;padding:.7rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.brand{font-weight:700;letter-spacing:.02em;color:#fff;text-decoration:none;font-size:1.1rem}
.top nav{display:flex;flex-wrap:wrap;gap:.1rem;flex:1}
.top nav a{color:#dfe6ee;text-decoration:none;padding:.3rem .5rem;border-radius:6px}
.top nav a[aria-current=page]{background:#ffffff24;color:#fff;font-weight:600}
.top nav a:hover{color:#fff;background:#ffffff14}
.who{display:flex;gap:.6rem;align-items:center;color:#dfe6ee;font-size:.9rem}
.who button{margin:0;padding:.25rem .7rem;background:transparent;color:#fff;border-color:#ffffff80}
main{max-width:64rem;margin:0 auto;padding:1.5rem 1rem 3rem}
main.narrow{max-width:28rem;margin-top:3rem}
h1{font-size:1.55rem;margin:.2rem 0 1rem}h2{font-size:1.15rem;margin:0 0 .8rem}h3{font-size:1rem;margin:0}
blockquote{margin:.9rem 0;padding:.1rem 0 .1rem 1rem;border-left:3px solid var(--line);white-space:pre-wrap}
meter{width:8rem;vertical-align:middle}
.lead{color:var(--muted);margin-top:-.4rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1.2rem 1.3rem;margin:0 0 1.2rem}
.grid{display:grid;gap:1.2rem;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr))}
.grid{margin:0 0 1.2rem}.grid .card{margin:0}
.figure{font-size:2rem;font-weight:700;line-height:1.1}
.muted{color:var(--muted)}.small{font-size:.88rem}
table{width:100%;border-collapse:collapse;font-size:.95rem}
th,td{text-align:left;padding:.55rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.table-wrap{overflow-x:auto;position:relative}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code{background:#eef1f4;padding:.1rem .3rem;border-radius:4px}
pre{background:#eef1f4;padding:.8rem;border-radius:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
label{display:block;font-weight:600;margin:.9rem 0 .25rem}
form.card>input[type=hidden]+label{margin-top:0}
.check{display:flex;gap:.55rem;align-items:flex-start;font-weight:400;margin:.6rem 0}
.check input{margin-top:.35rem}
input[type=text],input[type=password],select,textarea{width:100%;padding:.5rem .6rem;font:inherit;color:inherit;background:#fff;border:1px solid #8c959f;border-radius:6px}
textarea{min-height:4.5rem}
.hint{font-size:.85rem;color:var(--muted);margin:.2rem 0 0}
fieldset{border:0;padding:0;margin:0}legend{font-weight:600;padding:0;margin:.6rem 0 .2rem}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.5rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-ink);cursor:pointer;text-decoration:none;margin:1rem .4rem 0 0}
button.secondary,.button.secondary{background:#fff;color:var(--accent)}
button.danger{background:var(--danger);border-color:var(--danger)}
.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.row>*,.row button{margin:0}.actions{margin-top:1.2rem}
.row input[type=text]{width:auto;flex:1;min-width:12rem}.row .grow{flex:1}
td form{margin:0}form.inline{display:inline-block;margin:0}td button,td .button{margin:0}
nav.tabs{display:flex;flex-wrap:wrap;gap:.3rem;margin:0 0 1rem;border-bottom:1px solid var(--line)}
nav.tabs a{padding:.4rem .8rem;text-decoration:none;border-bottom:3px solid transparent;margin-bottom:-1px}
nav.tabs a[aria-current=page]{border-color:var(--accent);color:var(--ink);font-weight:600}
td time{white-space:nowrap}td.pick{width:2.5rem;text-align:center}td.act{text-align:right;white-space:nowrap}
table.fields{margin:.8rem 0 0}caption{text-align:left;font-weight:600;padding:0 0 .4rem}
input[type=datetime-local]{padding:.45rem .6rem;font:inherit;color:inherit;background:#fff;border:1px solid #8c959f;border-radius:6px}
ul.plain{list-style:none;margin:0;padding:0}
.notice,.error,.warning{padding:.7rem .9rem;border-radius:8px;margin:0 0 1.2rem}
.notice{background:#e6f4ea;color:#0f5323;border:1px solid #a6d8b4}
.error{background:#fdecea;color:#8c1d18;border:1px solid #f1aeaa}
.warning{background:#fff4d6;color:#5c3c00;border:1px solid #f0d58a}
.badge{display:inline-block;font-size:.78rem;font-weight:600;padding:.1rem .5rem;border-radius:999px;background:#eef1f4;color:var(--ink);white-space:nowrap}
.badge.ok{background:#dcf3e3;color:#0f5323}.badge.warn{background:#fff0c2;color:#5c3c00}.badge.bad{background:#fbdcd9;color:#8c1d18}
.secret{display:flex;gap:.5rem;align-items:stretch;flex-wrap:wrap}
.secret input{flex:1;min-width:12rem;font-family:ui-monospace,Menlo,Consolas,monospace}
.secret button{margin:0}
.diff{margin-top:.8rem;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;background:#fff;border:1px solid var(--line);border-radius:8px;padding:.4rem 0;overflow-x:auto}
.diff span{display:block;padding:0 .8rem;white-space:pre-wrap;word-break:break-word}
.diff .add{background:#e6f4ea;color:#0f5323}.diff .del{background:#fdecea;color:#8c1d18}.diff .hunk{color:var(--muted);background:#f3f4f6}
.empty{color:var(--muted);font-style:italic}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
@media (max-width:40rem){main{padding:1rem .75rem 2rem}th,td{padding:.45rem .3rem}.top .bar{padding:.6rem .75rem}main.narrow{margin-top:1rem}.card{padding:1rem}th.opt,td.opt{display:none}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.stack tr{display:grid;grid-template-columns:2.2rem 2.2rem 1fr;padding:.5rem 0;border-bottom:1px solid var(--line)}
table.stack td{border:0;padding:.1rem 0}table.stack td:not(.pick){grid-column:3}table.stack td.act{text-align:left}
table.stack td.pick::before{content:attr(data-side);display:block;font-size:.7rem;color:var(--muted)}}
`;

/** Reveals and wires the copy buttons; without scripts the value is still there to select. */
export const COPY_SCRIPT = `for(const b of document.querySelectorAll('button[data-copy]')){b.hidden=false;b.addEventListener('click',async()=>{const f=document.getElementById(b.dataset.copy);f.select();try{await navigator.clipboard.writeText(f.value)}catch{document.execCommand('copy')}b.textContent='Copied'})}`;
