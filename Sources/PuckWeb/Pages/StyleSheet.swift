/// The one style sheet, served at `/style.css` by the dock itself (no CDN, no web font).
/// Mobile first: one column, controls at least 48 px high (WCAG 2.5.5's 44 px with room);
/// dark unless the browser prefers light (`prefers-color-scheme`); colours chosen for a
/// contrast of at least 4.5:1 (WCAG AA) for text in both schemes.
public enum StyleSheet {
  public static let text = """
    :root{color-scheme:dark light;--bg:#101214;--panel:#1b1f24;--fg:#eceff1;--muted:#b0b8c0;\
    --line:#38404a;--accent:#7cc4ff;--accent-fg:#06121d;--good:#7ee2a8;--bad:#ff9c9c;--warn:#ffd479}
    @media (prefers-color-scheme:light){:root{--bg:#fafafa;--panel:#ffffff;--fg:#15181b;\
    --muted:#4a525a;--line:#c9ced4;--accent:#0b5fa5;--accent-fg:#ffffff;--good:#0b6b34;\
    --bad:#a4161a;--warn:#7a4f00}}
    *{box-sizing:border-box}
    html{font-size:112.5%;-webkit-text-size-adjust:100%}
    body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.5 system-ui,-apple-system,\
    "Segoe UI",Roboto,sans-serif}
    header{background:var(--panel);border-bottom:1px solid var(--line);position:sticky;top:0}
    nav{display:flex;flex-wrap:wrap;gap:.25rem;align-items:center;max-width:40rem;margin:0 auto;\
    padding:.25rem .5rem}
    nav a,nav button{display:inline-flex;align-items:center;min-height:48px;padding:0 .45rem;\
    color:var(--fg);text-decoration:none;border-radius:.5rem;font-weight:600}
    nav a[aria-current=page]{background:var(--accent);color:var(--accent-fg)}
    nav form{margin:0 0 0 auto}
    nav button{background:none;border:1px solid var(--line);font:inherit;cursor:pointer}
    main{max-width:40rem;margin:0 auto;padding:1rem}
    h1{font-size:1.4rem;margin:.5rem 0 1rem}
    h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
    section>h2:first-child{margin-top:0}
    section,.card{background:var(--panel);border:1px solid var(--line);border-radius:.75rem;\
    padding:1rem;margin:0 0 1rem}
    .verdict{font-size:1.3rem;font-weight:700;margin:0}
    .good{color:var(--good)}.bad{color:var(--bad)}.warn{color:var(--warn)}
    .muted{color:var(--muted)}
    .big{font-size:1.6rem;font-weight:700;font-variant-numeric:tabular-nums}
    ul.plain{list-style:none;padding:0;margin:0}
    ul.plain li{padding:.5rem 0;border-top:1px solid var(--line)}
    ul.plain li:first-child{border-top:0}
    ul.plain li.card{padding:1rem;border:1px solid var(--line);margin:0 0 1rem}
    .flash{border-radius:.75rem;padding:.75rem 1rem;margin:0 0 1rem;border:2px solid var(--good)}
    .flash.error{border-color:var(--bad)}
    label{display:block;font-weight:600;margin:.75rem 0 .25rem}
    input[type=text],input[type=password],input[type=time],input[type=date]{width:100%;\
    min-height:48px;padding:.5rem .75rem;font:inherit;color:var(--fg);background:var(--bg);\
    border:1px solid var(--muted);border-radius:.5rem}
    fieldset{border:1px solid var(--line);border-radius:.5rem;margin:.75rem 0;padding:.5rem}
    legend{font-weight:600;padding:0 .25rem}
    .days{display:flex;flex-wrap:wrap;gap:.25rem}
    .check{display:inline-flex;align-items:center;gap:.5rem;min-height:48px;min-width:48px;\
    padding:0 .6rem;margin:0;font-weight:400;border:1px solid var(--line);border-radius:.5rem}
    input[type=checkbox]{width:1.4rem;height:1.4rem;accent-color:var(--accent)}
    button,.button{display:inline-flex;align-items:center;justify-content:center;min-height:48px;\
    min-width:48px;padding:0 1.1rem;font:inherit;font-weight:600;border-radius:.5rem;cursor:pointer;\
    background:var(--accent);color:var(--accent-fg);border:1px solid var(--accent)}
    button.secondary,.button.secondary{background:none;color:var(--fg);border-color:var(--muted)}
    a.button{text-decoration:none}
    button.danger{background:none;color:var(--bad);border-color:var(--bad)}
    .actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.5rem}
    .actions form{margin:0}
    .alarm-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem .75rem}
    h3{font-size:1rem;margin:1rem 0 .25rem}
    .chart{width:100%;height:auto;display:block}
    .chart-bar{fill:var(--accent)}
    .chart-axis{stroke:var(--line)}
    .chart-value,.chart-label{fill:var(--fg);font-size:12px}
    :focus-visible{outline:3px solid var(--accent);outline-offset:2px}
    .visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);\
    white-space:nowrap}
    """
}
