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
}

class Pattern {
    public boolean matches(String root, String element) {
        return false;
    }
}
