// svgpan.js - runs the pan and zoom script of an --svg file against a small
// model of the SVG DOM and checks what the wheel and a drag do to the graph.
// Usage: node tests/svgpan.js FILE.svg; prints ok/not ok lines.
'use strict';
const fs = require('fs');

const svg = fs.readFileSync(process.argv[2], 'utf8');
const m = /<script type="text\/ecmascript"><!\[CDATA\[([\s\S]*?)\]\]><\/script>/.exec(svg);
function near(x, y) { return Math.abs(x - y) < 1e-9; }
// Where the graph point g appears in root coordinates.
function shown(g) {
	const p = new Point();
	p.x = g.x;
	p.y = g.y;
	return p.matrixTransform(view.getCTM());
}
let failed = 0;
function check(name, ok) {
	console.log((ok ? 'ok - ' : 'not ok - ') + 'svg script: ' + name);
	if (!ok)
		failed = 1;
}
check('the file holds it', m !== null);
if (!m)
	process.exit(1);

// An affine matrix [a c e; b d f; 0 0 1] with SVGMatrix's methods.
class Matrix {
	constructor(a = 1, b = 0, c = 0, d = 1, e = 0, f = 0) {
		Object.assign(this, { a, b, c, d, e, f });
	}
	multiply(n) {
		return new Matrix(this.a * n.a + this.c * n.b, this.b * n.a + this.d * n.b,
			this.a * n.c + this.c * n.d, this.b * n.c + this.d * n.d,
			this.a * n.e + this.c * n.f + this.e, this.b * n.e + this.d * n.f + this.f);
	}
	translate(x, y) { return this.multiply(new Matrix(1, 0, 0, 1, x, y)); }
	scale(k) { return this.multiply(new Matrix(k, 0, 0, k, 0, 0)); }
	inverse() {
		const det = this.a * this.d - this.b * this.c;
		return new Matrix(this.d / det, -this.b / det, -this.c / det, this.a / det,
			(this.c * this.f - this.d * this.e) / det, (this.b * this.e - this.a * this.f) / det);
	}
}
class Point {
	constructor() { this.x = 0; this.y = 0; }
	matrixTransform(t) {
		const p = new Point();
		p.x = t.a * this.x + t.c * this.y + t.e;
		p.y = t.b * this.x + t.d * this.y + t.f;
		return p;
	}
}

// The root sits at (10, 20) on the screen, shown twice as large.
const screen = new Matrix(2, 0, 0, 2, 10, 20);
const listeners = {};
const attrs = {};
// The graph's bounding box, and the window it opens in.
const bbox = { x: 0, y: -400, width: 1000, height: 400 };
const view = {
	getBBox: () => bbox,
	setAttribute(name, value) { attrs[name] = value; },
	getCTM() {
		const t = attrs.transform || '';
		let v = /^translate\(([-\d.e]+),([-\d.e]+)\)$/.exec(t);
		if (v)
			return new Matrix(1, 0, 0, 1, +v[1], +v[2]);
		v = /^matrix\(([^)]*)\)$/.exec(t);
		if (!v)
			throw new Error('transform not understood: ' + t);
		return new Matrix(...v[1].split(',').map(Number));
	},
};
const root = {
	createSVGPoint: () => new Point(),
	createSVGMatrix: () => new Matrix(),
	getScreenCTM: () => screen,
	addEventListener(type, f) { listeners[type] = f; },
};
attrs.transform = /<g id="viewport" transform="([^"]*)"/.exec(svg)[1];
global.document = { documentElement: root, getElementById: id => (id === 'viewport' ? view : null) };
const onload = [];
global.window = {
	innerWidth: 500, innerHeight: 400,
	addEventListener(type, f) { if (type === 'load') onload.push(f); },
};
new Function(m[1])();
check('waits for the document to load', onload.length === 1 && !listeners.wheel);
onload.forEach(f => f());

// Fitted: the whole box inside the 500x400 window, centred, as large as fits.
{
	const t = view.getCTM();
	const lo = shown({ x: bbox.x, y: bbox.y }), hi = shown({ x: bbox.x + bbox.width, y: bbox.y + bbox.height });
	check('opens fitted to the window (scale 0.96 * 500/1000)', near(t.a, 0.48) && near(t.d, 0.48));
	check('the graph is inside the window and centred',
		lo.x >= 0 && hi.x <= 500 && lo.y >= 0 && hi.y <= 400 && near(lo.x + hi.x, 500) && near(lo.y + hi.y, 400));
}
attrs.transform = 'translate(0,0)';

function fire(type, fields) {
	const evt = Object.assign({ button: 0, deltaMode: 0, prevented: false }, fields);
	evt.preventDefault = () => { evt.prevented = true; };
	listeners[type](evt);
	return evt;
}

check('listens to wheel, mousedown, mousemove, mouseup',
	['wheel', 'mousedown', 'mousemove', 'mouseup'].every(t => typeof listeners[t] === 'function'));

// The wheel at screen (110, 220), root (50, 100): the graph point there stays.
let evt = fire('wheel', { clientX: 110, clientY: 220, deltaY: -100 });
let v = view.getCTM();
check('wheel up zooms in by 1.2', near(v.a, 1.2) && near(v.d, 1.2) && near(v.b, 0) && near(v.c, 0));
let p = shown({ x: 50, y: 100 });
check('the point under the pointer stays', near(p.x, 50) && near(p.y, 100));
check('the page does not scroll', evt.prevented);
fire('wheel', { clientX: 110, clientY: 220, deltaY: 100 });
v = view.getCTM();
check('wheel down undoes it', near(v.a, 1) && near(v.e, 0) && near(v.f, 0));
fire('wheel', { clientX: 10, clientY: 20, deltaY: 3, deltaMode: 1 });
check('three lines are one notch', near(view.getCTM().a, 1 / 1.2));
attrs.transform = 'translate(0,0)';

// A drag by (20, 40) on the screen moves the graph (10, 20) in the root.
fire('mousedown', { clientX: 110, clientY: 220 });
fire('mousemove', { clientX: 130, clientY: 260 });
v = view.getCTM();
check('a drag moves the graph with the pointer', near(v.e, 10) && near(v.f, 20) && near(v.a, 1));
fire('mouseup', {});
fire('mousemove', { clientX: 500, clientY: 500 });
v = view.getCTM();
check('after the button is let go, moving does nothing', near(v.e, 10) && near(v.f, 20));
fire('mousedown', { clientX: 110, clientY: 220, button: 2 });
fire('mousemove', { clientX: 0, clientY: 0 });
check('other buttons do not drag', near(view.getCTM().e, 10));
process.exit(failed);
