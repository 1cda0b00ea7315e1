/** The one stylesheet of the customer-facing pages (served by src/hosted-pages/page.ts under its hash). */
export const PAGE_CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1d23;background:#f4f5f7}
.top{background:#1f2a44;color:#fff;font-weight:600;font-size:1.1rem;padding:14px 24px;min-height:52px;border-bottom:6px solid var(--brand,#1f2a44)}
main{max-width:880px;margin:0 auto;padding:24px 16px 8px}
.foot{max-width:880px;margin:0 auto;padding:8px 16px 32px;color:#555c68;font-size:.85rem}
h1{font-size:1.5rem;margin:0 0 8px}
h2{font-size:1.15rem;margin:0 0 12px}
.card{background:#fff;border:1px solid #d9dce1;border-radius:10px;padding:20px;margin:0 0 20px}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:20px;align-items:start}
.grid>*{min-width:0}
@media (max-width:640px){.grid{grid-template-columns:1fr}.top{padding:14px 16px}}
.muted{color:#555c68}
.amount{font-size:2rem;font-weight:700;margin:4px 0}
.status{display:inline-block;border-radius:999px;padding:2px 10px;font-size:.85rem;font-weight:600;background:#e8eaee;color:#30343b}
.status-paid{background:#dff3e6;color:#14532d}
.status-open{background:#fff1d6;color:#7a4b00}
.status-void{background:#eceff3;color:#444}
table{width:100%;border-collapse:collapse}
.table-wrap{overflow-x:auto}
th,td{text-align:left;padding:8px 6px;border-bottom:1px solid #e6e8ec;vertical-align:top}
th{font-size:.85rem;color:#555c68;font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap}
td.num.unit{white-space:normal}
tfoot td{border-bottom:none}
tbody tr.detail td{font-size:.85rem;color:#555c68;padding-top:2px;padding-bottom:4px}
tbody tr.detail td:first-child{padding-left:18px}
tfoot tr.total td{font-weight:700;border-top:2px solid #1a1d23}
dl{margin:0;display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}
dt{color:#555c68}
dd{margin:0}
h3{font-size:1rem;margin:20px 0 4px}
label.check{display:flex;gap:8px;align-items:center;font-weight:500}
label.check input{width:auto}
label{display:block;font-weight:600;margin:12px 0 4px}
input,select{width:100%;font:inherit;padding:10px 12px;border:1px solid #8a909b;border-radius:6px;background:#fff;color:#1a1d23}
input:focus,select:focus,button:focus,a:focus{outline:3px solid #3d6fd9;outline-offset:1px}
.row{display:grid;grid-template-columns:1fr 1fr;gap:12px}
button{font:inherit;font-weight:600;margin-top:16px;padding:12px 18px;border:0;border-radius:6px;background:var(--brand,#2751b8);color:var(--brand-text,#fff);cursor:pointer;width:100%}
button.secondary{background:#fff;color:#2751b8;border:1px solid #2751b8;width:auto;margin-top:8px}
button.danger{background:#fff;color:#a11d1d;border:1px solid #a11d1d;width:auto;margin-top:8px}
a{color:#2751b8}
.notice{border-radius:8px;padding:12px 14px;margin:0 0 16px;font-weight:500}
.notice-error{background:#fdecec;color:#8a1313;border:1px solid #f1b4b4}
.notice-ok{background:#e5f5ea;color:#14532d;border:1px solid #a9dcb8}
.field-error{color:#8a1313;font-size:.9rem;margin:4px 0 0}
.field-error:empty{display:none}
.field-label{font-weight:600;margin:12px 0 4px}
.card-element{padding:10px 12px;border:1px solid #8a909b;border-radius:6px;background:#fff;min-height:44px}
.card-element input{border:0;padding:4px 0}
.pdf-slot{margin-top:12px}
.inline-form{display:inline}
ul.plain{list-style:none;padding:0;margin:0}
ul.plain li{padding:10px 0;border-bottom:1px solid #e6e8ec}
ul.plain li:last-child{border-bottom:none}
`;
