namespace Acme
{
    // overloads: by argument count and by the arguments' types; a default value and
    // `params` make a range of counts
    public class Printer
    {
        public void Print(string text) {}
        public void Print(int value) {}
        public void Print(string text, int width, bool wrap = false) {}
        public void PrintAll(params object[] values) {}
        public void PrintAll(string header, System.Collections.IEnumerable values) {}

        public void Run()
        {
            Print("a");
            Print(7);
            Print("a", 3);
            Print("a", 3, true);
            PrintAll(1, 2, 3);
        }
    }
}
