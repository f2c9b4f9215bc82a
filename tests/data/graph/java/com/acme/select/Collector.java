package com.acme.select;

public class Collector {
    public static int count(Evaluator eval, String[] elements) {
        int n = 0;
        for (String element : elements) {
            if (eval.matches("root", element)) {
                n++;
            }
        }
        return n;
    }
}

class AnyOf extends Evaluator {
    public boolean matches(String root, String element) {
        return true;
    }

    public boolean both(String root, String element) {
        return matches(root, element) && matches(element, root);
    }
}

class AllOf extends AnyOf {
    public boolean matches(String root, String element) {
        return false;
    }
}

class Pattern {
    public boolean matches(String root, String element) {
        return false;
    }
}
