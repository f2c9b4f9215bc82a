'use strict';

var qs = require('../');
var utils = require('../lib/utils');

function roundTrip(object) {
    var text = qs.stringify(object, { encoder: qs.escape });
    var again = qs.parse(text);
    utils.merge(again, { extra: qs.escape('a b') });
    return utils.assign({}, again);
}

module.exports = roundTrip;
