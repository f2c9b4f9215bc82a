package com.acme.select;

public abstract class Evaluator {
    public abstract boolean matches(String root, String element);

    public static final class Tag extends Evaluator {
        private final String tag;

        public Tag(String tag) {
            this.tag = tag;
        }

        public boolean matches(String root, String element) {
            return element.equals(tag);
        }
    }
}
