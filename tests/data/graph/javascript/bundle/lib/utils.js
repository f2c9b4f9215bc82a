exports.escape = function (s) {
  return s.replace(/</g, '&lt;');
};
