var router = module.exports = {};

router.set = function set(k, v) {
  return k;
};

router.route = (path) => {
  return router.set(path, 0);
};
