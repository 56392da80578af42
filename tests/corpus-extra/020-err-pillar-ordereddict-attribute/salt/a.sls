x: {test.nop: [{n: '{{ pillar.app.sub.nope }}'}]}
